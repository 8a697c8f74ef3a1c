import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

/// Files built to exhaust a worker, sent to a real `cluster worker` with its default flags inside
/// a real cgroup v1 memory limit of 1 GiB: a 1.5 MB non-interleaved baseline CMYK JPEG of 100 MP
/// (8 bytes a pixel of coefficients), a lossless WebP of 100 MP whose image chunk lies behind an
/// ICC profile of 2 MiB, a PNG of 30,000 compressed text chunks, a PNG of 60 bytes cut short in a
/// text chunk that claims 1.9 GB (libpng would allocate and zero the claim), a HEIC grid made of
/// itself (libheif would recurse until the worker's stack ran out), a HEIC grid of 16x8 that names
/// a canvas of 3 GB (libheif would allocate it), and a JPEG of 700 scans. Each
/// fails at once with a reason naming the limit it met, nothing is OOM-killed, and a long
/// decode stops as soon as its job is cancelled.
final class HostileFileCgroupTests: XCTestCase {
    func testHostileFilesFailNamingTheirLimitsInsideAOneGiBCgroupAndACancelFreesTheCore() throws {
        let limit = 1 << 30
        guard let large = RGBAImage(width: 10000, height: 10000) else { return XCTFail("no memory for the test image") }
        large.pixels.update(repeating: 180, count: large.byteCount)
        let webp = try ImageCodec.encode(large, as: .webp, options: EncodeOptions(quality: 10, lossless: true, iccProfile: Data(count: 2 << 20)))
        let made: [String: (body: Data, type: String)] = [
            "cmyk.jpg": (HostileFiles.nonInterleavedJPEG(width: 10000, height: 10000, components: 4), "image/jpeg"),
            "behind.webp": (webp, "image/webp"),
            "text.png": (HostileFiles.textChunkPNG(count: 30_000, inflatedBytes: 65536), "image/png"),
            "claim.png": (HostileFiles.truncatedChunkPNG(type: "iTXt", claimed: 0x7000_0000), "image/png"),
            "itself.heic": (try Data(contentsOf: Repository.root.appendingPathComponent("Tests/PhotoClusterImagingTests/Fixtures/grid-of-itself.heic")), "image/heic"),
            "canvas.heic": (try Data(contentsOf: Repository.root.appendingPathComponent("Tests/PhotoClusterImagingTests/Fixtures/grid-canvas-3gb.heic")), "image/heic"),
            "scans.jpg": (HostileFiles.manyScanJPEG(width: 2000, height: 2000, scans: 700), "image/jpeg"),
            // 100 scans (the most allowed) over 80 MP: seconds of decoding, stopped by a cancel.
            "slow.jpg": (HostileFiles.manyScanJPEG(width: 10000, height: 8000, scans: ImageCodec.maxJPEGScans), "image/jpeg"),
        ]
        let cluster = try CgroupWorkerCluster(label: "hostile", limitBytes: limit, made: made, coordinatorArguments: ["--heartbeat-ms", "250"])
        defer { cluster.stop() }
        let group = cluster.group, worker = cluster.worker!

        let started = Date()
        let hostile = try cluster.submit("hostile", [("cmyk", "cmyk.jpg"), ("webp", "behind.webp"), ("text", "text.png"), ("claim", "claim.png"), ("itself", "itself.heic"), ("canvas", "canvas.heic"), ("scans", "scans.jpg")], [])
        let result = hostile.finish(timeout: StageTimeLimit.defaultSeconds)
        XCTAssertLessThan(Date().timeIntervalSince(started), StageTimeLimit.defaultSeconds, "within a stage's time limit")
        XCTAssertEqual(result.status, 1, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        var reasons: [String: String] = [:]
        for failure in report["failed"] as? [[String: Any]] ?? [] {
            reasons[failure["name"] as? String ?? ""] = failure["error"] as? String
        }
        XCTAssertEqual(reasons.count, 7, result.stdout)
        for name in ["cmyk", "webp"] {
            let reason = reasons[name] ?? ""
            XCTAssertTrue(reason.contains("at its peak (decode") && reason.contains("over this worker's memory budget of") && reason.hasSuffix("(--memory-limit)"), "\(name): \(reason)")
        }
        XCTAssertTrue(reasons["text"]?.contains("PNG has more than 1000 text chunks") == true, reasons["text"] ?? "")
        XCTAssertTrue(reasons["claim"]?.contains("PNG data is truncated: its iTXt chunk at byte 33 claims 1879048192 bytes") == true, reasons["claim"] ?? "")
        XCTAssertTrue(reasons["itself"]?.contains("HEIF container is corrupt: item 2 is made from itself") == true, reasons["itself"] ?? "")
        XCTAssertTrue(reasons["canvas"]?.contains("its grid item 2 claims a 27256x27747 canvas") == true, reasons["canvas"] ?? "")
        XCTAssertTrue(reasons["scans"]?.contains("JPEG has 700 scans, more than the 100 a photo may have") == true, reasons["scans"] ?? "")

        // A decode of the most scans allowed runs; the job is cancelled while it does, and the
        // worker's decode ends at once (its gauge of running stages, not a sleep, says so).
        let decoding = "photocluster_operations_running{stage=\"decode\"}"
        func running() -> Double { (try? HTTP.text("http://\(cluster.workerMetrics)/metrics")).flatMap { sample(decoding, in: $0) } ?? -1 }
        let slow = try cluster.submit("slow", [("slow", "slow.jpg")], [])
        var job: String?
        XCTAssertTrue(eventually(timeout: 30) {
            let text = slow.stderrSoFar
            job = text.range(of: #"job \S+:"#, options: .regularExpression).map { String(text[$0].dropFirst(4).dropLast()) }
            return job != nil && running() == 1
        }, slow.stderrSoFar)
        let cancel = try CommandRunner.run(["cancel", try XCTUnwrap(job), "--coordinator", cluster.clientEndpoint], timeout: 10)
        XCTAssertEqual(cancel.status, 0, cancel.stderr)
        let cancelled = Date()
        XCTAssertTrue(eventually(timeout: 5) { running() == 0 }, "the decode went on")
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 1, "the core was freed within a second")
        let slowResult = slow.finish(timeout: 10)
        let slowReport = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(slowResult.stdout.utf8)) as? [String: Any], slowResult.stdout)
        XCTAssertEqual(slowReport["cancelled"] as? Int, 1, slowResult.stdout)
        XCTAssertEqual(slowReport["succeeded"] as? Int, 0, slowResult.stdout)

        // Alive, never killed, never at its limit.
        XCTAssertTrue(worker.process.isRunning, "the worker ended: \(worker.stderrSoFar)")
        XCTAssertEqual(group.oomKills, 0, "the kernel killed a process of the group")
        XCTAssertEqual(group.failures, 0, "the group reached its limit (max usage \(group.maxUsage))")
    }
}
