import Foundation
import PhotoClusterTestSupport
import XCTest

/// A CURVE worker whose connection dies half-open (`Tests/Network/half_open_relay.py` stops
/// relaying it but keeps the coordinator's end open, as a cut cable or a forgetful NAT would)
/// connects afresh under a new routing id and works on, while the coordinator still holds the
/// dead connection and its old id, which the coordinator's ROUTER never hands to another
/// connection.
final class HalfOpenWorkerTests: XCTestCase {
    func testAWorkerWhoseConnectionDiesHalfOpenIsHeardAgainOnANewConnection() throws {
        // Liveness 1 s: four missed 250 ms heartbeats.
        let cluster = try SecuredCluster(label: "half-open", roles: ["w1": "worker", "alice": "client"], coordinatorArguments: ["--liveness", "4"])
        defer { cluster.stop() }
        let relayPort = LoopbackPorts.consecutive(1)
        let relay = try RunningCommand(binary: URL(fileURLWithPath: "/usr/bin/python3"), arguments: [
            "-u", Repository.root.appendingPathComponent("Tests/Network/half_open_relay.py").path,
            "--listen", "\(relayPort)", "--target", cluster.workerEndpoint.replacingOccurrences(of: "tcp://", with: ""),
        ])
        defer { relay.stop() }
        let worker = try cluster.start(["worker", "--coordinator", "tcp://127.0.0.1:\(relayPort)", "--concurrency", "1", "--id", "w1", "--metrics-bind", "off"]
            + cluster.curve("w1"))
        // Before the coordinator, so that its drain is over at once.
        defer { worker.stop() }
        let coordinatorLog = { cluster.coordinator.stderrSoFar }
        let relayLog = { relay.stdoutSoFar }
        XCTAssertTrue(eventually(timeout: 20) { coordinatorLog().contains("worker w1 joined") }, coordinatorLog() + relayLog())
        XCTAssertTrue(relayLog().contains("accepted 1"), relayLog())

        relay.process.send(signal: SIGUSR1)
        XCTAssertTrue(eventually(timeout: 5) { relayLog().contains("frozen 1") }, relayLog())
        // The worker hears nothing for its liveness, connects afresh and says hello again.
        XCTAssertTrue(eventually(timeout: 15) { coordinatorLog().components(separatedBy: "worker w1 joined").count == 3 },
                      coordinatorLog() + "\n--- worker ---\n" + worker.stderrSoFar + "\n--- relay ---\n" + relayLog())
        XCTAssertTrue(relayLog().contains("accepted 2"), relayLog())
        XCTAssertFalse(relayLog().contains("target closed 1"), "the coordinator still holds the dead connection: \(relayLog())")

        // What the coordinator sends w1 reaches it on the new connection: a job runs there.
        let submit = try cluster.run(["submit", try cluster.manifest(count: 2).path, "--out", "after"], as: "alice")
        XCTAssertEqual(submit.status, 0, submit.stderr + coordinatorLog())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cluster.root.appendingPathComponent("after").path).filter { !$0.hasSuffix(".json") }.count, 2)
        XCTAssertFalse(relayLog().contains("target closed 1"), relayLog())
    }
}
