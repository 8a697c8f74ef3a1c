import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

/// A result larger than the coordinator takes in one message, made by a worker with default flags
/// inside a real cgroup v1 memory limit of 1.5 GiB: the photo fails once, at once, with the
/// figures (before, the message was dropped in transit and the photo redone for ever), the
/// worker lives, and another job's photos finish meanwhile.
final class LargeResultTests: XCTestCase {
    func testAResultOfAbout300MBFailsOnceAndTheWorkerLivesInsideItsLimit() throws {
        // 10000x10000 of noise: a JPEG of some 50 MB (under the download cap of 64 MiB) whose PNG is about 300 MB.
        let noise = try Self.noiseJPEG(width: 10_000, height: 10_000)
        // Default heartbeats: a worker encoding 100 MP near its memory limit on a busy machine may
        // be slow to beat, and a loss is not what this test is about.
        let cluster = try CgroupWorkerCluster(label: "large-result", limitBytes: 1_536 << 20, made: ["noise.jpg": (noise, "image/jpeg")])
        defer { cluster.stop() }
        let group = cluster.group, coordinator = cluster.coordinator!, worker = cluster.worker!

        let large = try cluster.submit("large", [("noise", "noise.jpg")], ["--format", "png"])
        let ordinary = Repository.samplePhotoFiles.prefix(6).enumerated().map { ("o\($0.offset)", "\($0.element)?n=\($0.offset)") }
        let others = try cluster.submit("ordinary", ordinary, ["--filter", "sepia"])

        let largeResult = large.finish(timeout: 300)
        XCTAssertEqual(largeResult.status, 1, largeResult.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(largeResult.stdout.utf8)) as? [String: Any], largeResult.stdout)
        let reason = try XCTUnwrap((report["failed"] as? [[String: Any]])?.first?["error"] as? String, "\(report)")
        XCTAssertTrue(reason.contains("MiB, over the coordinator's limit of 256.0 MiB") && reason.contains("--max-result-bytes"), reason)
        XCTAssertFalse(reason.contains("attempts"), "failed once, not tried again: \(reason)")
        XCTAssertFalse(coordinator.stderrSoFar.contains("retried"), coordinator.stderrSoFar)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cluster.work.appendingPathComponent("large/noise.png").path))

        let otherResult = others.finish(timeout: 300)
        XCTAssertEqual(otherResult.status, 0, otherResult.stderr + otherResult.stdout)

        // Alive, never killed, never at its limit.
        XCTAssertTrue(worker.process.isRunning, "the worker ended: \(worker.stderrSoFar)")
        XCTAssertEqual(group.oomKills, 0, "the kernel killed a process of the group")
        XCTAssertEqual(group.failures, 0, "the group reached its limit (max usage \(group.maxUsage))")
        XCTAssertFalse(coordinator.stderrSoFar.contains(" lost"), coordinator.stderrSoFar)
    }

    /// A JPEG of random pixels (xorshift, so the test makes it in a moment).
    private static func noiseJPEG(width: Int, height: Int) throws -> Data {
        guard let image = RGBAImage(width: width, height: height) else { throw XCTSkip("no memory for a \(width)x\(height) test image") }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        UnsafeMutableRawPointer(image.pixels).withMemoryRebound(to: UInt64.self, capacity: image.byteCount / 8) { words in
            for index in 0..<(image.byteCount / 8) {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                words[index] = state
            }
        }
        return try ImageCodec.encode(image, as: .jpeg, options: EncodeOptions(quality: 65))
    }
}
