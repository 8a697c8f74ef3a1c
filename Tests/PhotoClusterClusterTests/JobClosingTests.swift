import Foundation
import PhotoClusterClient
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

/// A coordinator tells its workers when a job closes, and a worker that registers which jobs
/// are open, so no worker keeps anything of a job that is over.
final class JobClosingTests: XCTestCase {
    func testWorkersHearOfAFinishedJobAndARegisteringWorkerOfTheOpenOnes() async throws {
        let cluster = try ScriptedWorkerCluster(name: "job-closing")
        defer { cluster.stop() }
        let (client, out) = (cluster.client, cluster.out)
        let first = try cluster.connect("first")
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
        let second = try cluster.connect("second")
        let listed = second.next { body -> [String]? in
            if case .welcome(let welcome) = body, welcome.hasOpenJobs { return welcome.openJobs.jobIds }
            return nil
        }
        XCTAssertEqual(listed, [open.id], "the welcome lists the open job, not the finished one")
    }
}
