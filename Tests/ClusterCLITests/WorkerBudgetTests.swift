import Foundation
import PhotoClusterTestSupport
import XCTest

/// What a worker may claim of the coordinator, with real processes: a photo it holds without
/// progress is taken back and charged, and a result too large for the coordinator fails its photo
/// once, on the worker, with the figures, while the job's other photos finish.
final class WorkerBudgetTests: XCTestCase {
    private var cluster: PluginCluster?

    override func tearDown() {
        cluster?.stop()
    }

    func testAPhotoHeldWithoutProgressIsTakenBackChargedAndFailsAfterItsAttempts() throws {
        // `patient` waits until it is cancelled: each worker holds its photos without a word of progress.
        // Eight photos fill both workers' windows once (2 × 4), so each attempt is one round.
        let cluster = try PluginCluster(label: "assignment-timeout", coordinatorArguments: ["--assignment-timeout", "1", "--max-attempts", "2"])
        self.cluster = cluster
        let run = try cluster.submit(tag: "held", count: 8, filters: ["patient"])

        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertEqual(run.report["succeeded"] as? Int, 0, "\(run.report)")
        let failed = try XCTUnwrap(run.report["failed"] as? [[String: Any]])
        XCTAssertEqual(failed.count, 8, "\(failed)")
        for photo in failed {
            let error = photo["error"] as? String ?? ""
            XCTAssertTrue(error.contains("without progress (cluster coordinator --assignment-timeout)"), error)
            // Charged each time: it ends after --max-attempts, not for ever.
            XCTAssertTrue(error.hasSuffix("(after 2 attempts)"), error)
        }
        // The workers were told to drop what was taken back, and were never lost for it.
        XCTAssertFalse(cluster.coordinator.stderrSoFar.contains(" lost"), cluster.coordinator.stderrSoFar)
        for (id, worker) in cluster.workersByID {
            XCTAssertTrue(worker.process.isRunning, "worker \(id) runs")
        }
    }

    func testAResultOverTheCoordinatorsLimitFailsOnceAndTheOthersFinish() throws {
        let limit = 150_000
        let cluster = try PluginCluster(label: "result-limit", coordinatorArguments: ["--max-result-bytes", String(limit)])
        self.cluster = cluster
        let run = try cluster.submit(tag: "sized", filters: ["sepia"], options: ["--format", "png"])

        XCTAssertEqual(run.status, 1, run.stderr)
        let succeeded = try XCTUnwrap(run.report["succeeded"] as? Int)
        let failed = try XCTUnwrap(run.report["failed"] as? [[String: Any]])
        XCTAssertGreaterThan(succeeded, 0, "\(run.report)")
        XCTAssertGreaterThan(failed.count, 0, "\(run.report)")
        XCTAssertEqual(succeeded + failed.count, 14)
        for photo in failed {
            let error = photo["error"] as? String ?? ""
            XCTAssertTrue(error.contains("over the coordinator's limit of 146.5 KiB"), error)
            XCTAssertTrue(error.contains("--max-result-bytes"), error)
            XCTAssertFalse(error.contains("attempts"), "failed once, not tried again: \(error)")
        }
        // Tried once: the coordinator retried none of them.
        XCTAssertFalse(cluster.coordinator.stderrSoFar.contains("retried"), cluster.coordinator.stderrSoFar)
        // Every output written is within the limit, and each failed photo has none.
        let outputs = try FileManager.default.contentsOfDirectory(
            at: cluster.outputDirectory(tag: "sized"), includingPropertiesForKeys: [.fileSizeKey]
        ).filter { $0.pathExtension == "png" }
        XCTAssertEqual(outputs.count, succeeded, "\(outputs)")
        for output in outputs {
            let size = try XCTUnwrap(output.resourceValues(forKeys: [.fileSizeKey]).fileSize)
            XCTAssertLessThanOrEqual(size, limit, output.lastPathComponent)
        }
    }
}
