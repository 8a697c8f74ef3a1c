import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// `cluster drain WORKER`: an admin's key drains a worker, which then takes no work but stays
/// connected (`cluster status` shows it drained); a client's key is refused with the reason.
final class DrainCommandTests: XCTestCase {
    func testAnAdminDrainsAWorkerThatThenStaysIdleAndAClientKeyIsRefused() throws {
        let cluster = try SecuredCluster(label: "drain-command", roles: ["w1": "worker", "w2": "worker", "alice": "client", "ops": "admin"])
        defer { cluster.stop() }
        _ = try cluster.startWorker("w1")
        XCTAssertTrue(eventually(timeout: 15) { (try? self.worker("w1", in: cluster)) != nil }, "w1 joined")

        let refused = try cluster.run(["drain", "w1"], as: "alice")
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("draining a worker takes an admin key"), refused.stderr)
        XCTAssertNil(try worker("w1", in: cluster)?["state"], "a refused drain leaves the worker working")

        let drained = try cluster.run(["drain", "w1"], as: "ops")
        XCTAssertEqual(drained.status, 0, drained.stderr)
        XCTAssertTrue(eventually(timeout: 10) { (try? self.worker("w1", in: cluster)?["state"] as? String) == "WORKER_STATE_DRAINED" },
                      "status shows w1 drained: \(cluster.coordinator.stderrSoFar.suffix(2000))")

        // A job now waits at the coordinator, though w1 is connected with credit to spare…
        let submit = try cluster.start(["submit", try cluster.manifest(count: 1).path, "--out", "out", "--json", "--coordinator", cluster.clientEndpoint] + cluster.curve("alice"))
        XCTAssertTrue(eventually(timeout: 10) { (try? self.status(cluster)["queued"] as? Int) == 1 }, "the photo waits for a worker")
        XCTAssertNil(try worker("w1", in: cluster)?["inFlight"], "the drained worker was given nothing")
        // …until another worker joins.
        _ = try cluster.startWorker("w2")
        let result = submit.finish(timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try worker("w1", in: cluster)?["state"] as? String, "WORKER_STATE_DRAINED", "w1 stays connected and drained")
    }

    private func status(_ cluster: SecuredCluster) throws -> [String: Any] {
        let status = try cluster.run(["status", "--json"], as: "ops")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout)
    }

    private func worker(_ id: String, in cluster: SecuredCluster) throws -> [String: Any]? {
        (try status(cluster)["workers"] as? [[String: Any]])?.first { $0["workerId"] as? String == id }
    }
}
