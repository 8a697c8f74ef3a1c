import Foundation
import PhotoClusterClient
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

/// A second authorized worker key claiming a registered worker's routing id, against a
/// `cluster coordinator` process with CURVE keys: it is sent nothing (no assignment, no control,
/// no heartbeat), the worker whose id it claims keeps its work and is not declared lost, and
/// what it says is refused, logged and counted.
final class HostilePeerTests: XCTestCase {
    func testAnotherKeyClaimingAWorkersRoutingIDIsSentNothing() async throws {
        let coordinator = try CurveCoordinatorProcess(name: "hostile-peer", peers: [("wc", "worker"), ("mallory", "worker"), ("client", "client")])
        defer { coordinator.stop() }
        let logText = { coordinator.logText }
        let context = try ZMQContext()
        defer { context.terminate() }
        let wc = try ScriptedWorker(id: "wc", context: context, endpoint: coordinator.workerEndpoint, curve: coordinator.curve("wc"))
        defer { wc.close() }
        XCTAssertTrue(eventually(timeout: 10) { logText().contains("worker wc joined") }, logText())

        // Mallory connects again and again under the routing ids it can know or guess for wc:
        // its name, and its name with a secret of mallory's own. It keeps whatever reaches it.
        var framesToMallory = 0
        func malloryConnection(round: Int) throws -> ZMQSocket {
            let socket = try ZMQSocket(context: context, kind: .dealer)
            try socket.setRoutingID(round.isMultiple(of: 2) ? Data("wc".utf8) : RoutingIdentity.worker(named: "wc", secret: true))
            try socket.setLinger(milliseconds: 0)
            try socket.makeCurveClient(serverPublicKey: coordinator.pairs["coordinator"]!.publicKey, keys: coordinator.pairs["mallory"]!)
            try socket.connect(coordinator.workerEndpoint)
            return socket
        }
        var mallory = try malloryConnection(round: 0)
        let client = try ClusterClient(endpoint: coordinator.clientEndpoint, context: context, curve: coordinator.curve("client"))
        defer { client.close() }
        let job = try await client.submit(.with { submit in
            submit.outputDir = "out"
            submit.filters = [.with { $0.name = "sepia" }]
            submit.photos = (0..<6).map { index in .with { $0.name = "p\(index)"; $0.url = "http://127.0.0.1:9/p\(index).jpg" } }
        })
        var graphs: [Photocluster_V1_PhotoGraph] = []
        for round in 0..<6 {
            try wc.grant(1)
            if let graph = wc.nextAssignment(timeout: 5) { graphs.append(graph) }
            try wc.heartbeat(assignSequence: wc.lastAssignSequence, held: graphs)
            if round == 3, let first = graphs.first {
                // A control message for a photo wc holds, while mallory is connected.
                try await client.cancel(job: job.id, photos: [first.name])
            }
            // Long enough for the coordinator's heartbeat to wc (every second) to fall in some round.
            usleep(500_000)
            while let frames = try mallory.receive(dontWait: true) { framesToMallory += frames.count }
            // Mallory speaks as wc too: a hello for the id.
            try? mallory.send([Envelope.encode(Photocluster_V1_WorkerToCoordinator.with { $0.hello = .with { $0.workerID = "wc" } })])
            usleep(100_000)
            while let frames = try mallory.receive(dontWait: true) { framesToMallory += frames.count }
            mallory.close()
            mallory = try malloryConnection(round: round + 1)
        }
        usleep(500_000)
        while let frames = try mallory.receive(dontWait: true) { framesToMallory += frames.count }
        mallory.close()

        XCTAssertEqual(graphs.count, 6, "every assignment went to wc")
        XCTAssertEqual(framesToMallory, 0, "no frame reached a connection claiming wc's id with another key")
        XCTAssertFalse(logText().contains("worker wc lost"), logText())
        let status = try await client.status(job: job.id)
        XCTAssertEqual(Set(status.jobs.first?.photos.filter { $0.state != .cancelled }.map(\.workerID) ?? []), ["wc"])

        // What mallory said as wc was refused, logged and counted.
        let refused = { () -> Double? in
            guard let text = try? PlainHTTPClient.send("GET", coordinator.metrics).body else { return nil }
            return sample(#"photocluster_refused_requests_total{reason="routing_id"}"#, in: String(decoding: text, as: UTF8.self))
        }
        XCTAssertTrue(eventually(timeout: 5) { (refused() ?? 0) >= 1 }, "refused: \(String(describing: refused()))")
        XCTAssertTrue(logText().contains("claims the routing id of worker wc, registered with key \(coordinator.pairs["wc"]!.publicKey)"), logText())

        // wc's own connection is still the one the coordinator talks to.
        let heard = wc.next(timeout: 5) { body -> Bool? in
            if case .heartbeat = body { return true }
            return nil
        }
        XCTAssertEqual(heard, true, "wc heard the coordinator's heartbeat")
    }
}

/// Value of one series in a Prometheus exposition.
private func sample(_ series: String, in exposition: String) -> Double? {
    for line in exposition.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}
