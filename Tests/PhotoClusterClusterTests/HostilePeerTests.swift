import Foundation
import PhotoClusterClient
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

/// A second authorized worker key claiming a registered worker's routing id, against a
/// `cluster coordinator` process with CURVE keys: it is sent nothing, and the worker whose id it
/// claims keeps its work; once that worker's connection is gone, a connection of the other key
/// holding the id is refused, logged and counted.
final class HostilePeerTests: XCTestCase {
    func testAnotherKeyClaimingAWorkersRoutingIDIsSentNothing() async throws {
        let coordinator = try CurveCoordinatorProcess(name: "hostile-peer", peers: [("wc", "worker"), ("mallory", "worker"), ("client", "client")])
        defer { coordinator.stop() }
        let (pairs, workerEndpoint, clientEndpoint, metrics) = (coordinator.pairs, coordinator.workerEndpoint, coordinator.clientEndpoint, coordinator.metrics)
        let logText = { coordinator.logText }
        let curve = coordinator.curve
        let context = try ZMQContext()
        defer { context.terminate() }
        let wc = try ScriptedWorker(id: "wc", context: context, endpoint: workerEndpoint, curve: curve("wc"))
        defer { wc.close() }
        XCTAssertTrue(eventually(timeout: 10) { logText().contains("worker wc joined") }, logText())

        // Mallory connects under wc's routing id again and again, never saying hello, and
        // keeps whatever reaches it.
        var framesToMallory = 0
        func malloryConnection() throws -> ZMQSocket {
            let socket = try ZMQSocket(context: context, kind: .dealer)
            try socket.setRoutingID("wc")
            try socket.setLinger(milliseconds: 0)
            try socket.makeCurveClient(serverPublicKey: pairs["coordinator"]!.publicKey, keys: pairs["mallory"]!)
            try socket.connect(workerEndpoint)
            return socket
        }
        var mallory = try malloryConnection()
        let client = try ClusterClient(endpoint: clientEndpoint, context: context, curve: curve("client"))
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
            usleep(500_000)
            while let frames = try mallory.receive(dontWait: true) { framesToMallory += frames.count }
            // Mallory's own messages are never read either: a hello for the id.
            try? mallory.send([Envelope.encode(Photocluster_V1_WorkerToCoordinator.with { $0.hello = .with { $0.workerID = "wc" } })])
            mallory.close()
            mallory = try malloryConnection()
        }
        usleep(500_000)
        while let frames = try mallory.receive(dontWait: true) { framesToMallory += frames.count }
        mallory.close()

        XCTAssertEqual(graphs.count, 6, "every assignment went to wc")
        XCTAssertEqual(framesToMallory, 0, "no frame reached the connection claiming wc's id with another key")
        XCTAssertFalse(logText().contains("worker wc lost"), logText())
        let status = try await client.status(job: job.id)
        XCTAssertEqual(Set(status.jobs.first?.photos.filter { $0.state != .cancelled }.map(\.workerID) ?? []), ["wc"])

        // wc's connection goes (no goodbye); a connection of mallory's key that takes the free
        // id and speaks is refused, logged, counted and dropped.
        wc.close()
        let refused = { () -> Double? in
            guard let text = try? PlainHTTPClient.send("GET", metrics).body else { return nil }
            return sample(#"photocluster_refused_requests_total{reason="routing_id"}"#, in: String(decoding: text, as: UTF8.self))
        }
        XCTAssertEqual(refused(), 0)
        let impostor = try malloryConnection()
        defer { impostor.close() }
        XCTAssertTrue(eventually(timeout: 10) {
            try? impostor.send([Envelope.encode(Photocluster_V1_WorkerToCoordinator.with { $0.heartbeat = .with { $0.assignSequence = 99 } })])
            return (refused() ?? 0) >= 1
        }, "refused: \(String(describing: refused()))")
        XCTAssertTrue(logText().contains("claims the routing id of worker wc, registered with key \(pairs["wc"]!.publicKey)"), logText())
    }
}

/// Value of one series in a Prometheus exposition.
private func sample(_ series: String, in exposition: String) -> Double? {
    for line in exposition.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}
