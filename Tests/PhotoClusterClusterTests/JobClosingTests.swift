import Foundation
import PhotoClusterClient
import PhotoClusterCoordinator
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

/// A coordinator tells its workers when a job closes, and a worker that registers which jobs
/// are open, so no worker keeps anything of a job that is over.
final class JobClosingTests: XCTestCase {
    func testWorkersHearOfAFinishedJobAndARegisteringWorkerOfTheOpenOnes() async throws {
        let context = try ZMQContext()
        let coordinator = CoordinatorNode(
            configuration: CoordinatorConfiguration(workerEndpoint: "tcp://127.0.0.1:*", clientEndpoint: "tcp://127.0.0.1:*"),
            context: context)
        try coordinator.start()
        let client = try ClusterClient(endpoint: coordinator.boundClientEndpoint, context: context)
        let out = Repository.temporaryDirectory("job-closing")
        var workers: [ScriptedWorker] = []
        defer {
            client.close()
            for worker in workers { worker.close() }
            coordinator.stop()
            context.terminate()
            try? FileManager.default.removeItem(at: out)
        }
        let first = try ScriptedWorker(id: "first", context: context, coordinator: coordinator)
        workers.append(first)
        try first.grant(1)

        let done = try await client.submit(try ClusterHarness.submit([("photo", "http://127.0.0.1:9/done.jpg")], out: out, format: .jpeg))
        let graph = try XCTUnwrap(first.nextAssignment(), "the photo was assigned")
        try first.sendResult(of: graph, encoded: try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg")))
        for await _ in done.events {}
        let closed = first.next { body -> String? in
            if case .jobClosed(let closed) = body { return closed.jobID }
            return nil
        }
        XCTAssertEqual(closed, done.id, "the worker heard that the finished job closed")

        // No credit left anywhere: this job stays open, its photo queued.
        let open = try await client.submit(try ClusterHarness.submit([("photo", "http://127.0.0.1:9/open.jpg")], out: out))
        let second = try ScriptedWorker(id: "second", context: context, coordinator: coordinator)
        workers.append(second)
        let listed = second.next { body -> [String]? in
            if case .welcome(let welcome) = body, welcome.hasOpenJobs { return welcome.openJobs.jobIds }
            return nil
        }
        XCTAssertEqual(listed, [open.id], "the welcome lists the open job, not the finished one")
    }
}
