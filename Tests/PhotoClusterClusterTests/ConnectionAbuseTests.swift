import Foundation
import PhotoClusterClient
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

/// Peers that connect in ways meant to break the coordinator's sockets, in loops against a
/// `cluster coordinator` process with CURVE keys: it is still running and answering afterwards.
///
/// With libzmq 4.3.4, a ROUTER with ZMTP heartbeats aborted (`!_io_error` in
/// stream_engine_base.cpp) when a connection it had handed the routing id of to another, or one
/// whose inbound pipe was full, was closed by its peer: the second loop did that within a few
/// dozen rounds before the ROUTERs kept their routing ids and dropped ZMTP heartbeats.
final class ConnectionAbuseTests: XCTestCase {
    func testRefusedHandshakesOverAndOverLeaveItServing() async throws {
        let coordinator = try CurveCoordinatorProcess(name: "refused-loop", peers: [("stranger", ""), ("client", "client")])
        defer { coordinator.stop() }
        let context = try ZMQContext()
        defer { context.terminate() }
        // A key that is not authorized, and a client's key at the worker endpoint: each refused
        // by the ZAP handler. Most connections close at once, mid-handshake; every fourth waits
        // until it is told of its refusal.
        var refusalsHeard = 0
        for round in 0..<200 {
            let socket = try ZMQSocket(context: context, kind: .dealer)
            try socket.setLinger(milliseconds: 0)
            try socket.makeCurveClient(
                serverPublicKey: coordinator.pairs["coordinator"]!.publicKey, keys: coordinator.pairs[round.isMultiple(of: 6) ? "client" : "stranger"]!)
            let monitor = round.isMultiple(of: 4) ? try SocketMonitor(socket: socket, context: context, events: .handshakeFailed) : nil
            try socket.connect(round.isMultiple(of: 2) ? coordinator.workerEndpoint : coordinator.clientEndpoint)
            if let monitor {
                let deadline = Date().addingTimeInterval(5)
                while Date() < deadline {
                    if monitor.poll(timeoutMs: 100).contains(where: \.isHandshakeFailure) {
                        refusalsHeard += 1
                        break
                    }
                }
                monitor.close()
            }
            socket.close()
        }
        XCTAssertEqual(refusalsHeard, 50, "every connection that waited was refused")
        let refused = { sample(#"photocluster_refused_requests_total{reason="key"}"#, metrics: coordinator.metrics) ?? 0 }
        XCTAssertTrue(eventually(timeout: 5) { refused() >= Double(refusalsHeard) }, "refused handshakes: \(refused())")
        try await assertServing(coordinator, context: context)
    }

    func testConnectionsClaimingOneIDAndFloodingThenClosingLeaveItServing() async throws {
        let coordinator = try CurveCoordinatorProcess(name: "claim-loop", peers: [("mallory", "worker"), ("client", "client")])
        defer { coordinator.stop() }
        let context = try ZMQContext()
        defer { context.terminate() }
        func connection(_ id: String) throws -> ZMQSocket {
            let socket = try ZMQSocket(context: context, kind: .dealer)
            try socket.setLinger(milliseconds: 0)
            try socket.setRoutingID(id)
            try socket.makeCurveClient(serverPublicKey: coordinator.pairs["coordinator"]!.publicKey, keys: coordinator.pairs["mallory"]!)
            try socket.connect(coordinator.workerEndpoint)
            return socket
        }
        /// Writes `count` messages the coordinator must read and drop, as fast as it can.
        func flood(_ socket: ZMQSocket, _ count: Int) {
            for _ in 0..<count where (try? socket.send([Data(repeating: 0x7A, count: 100)])) != nil {}
        }
        var rounds = 0
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline && coordinator.isRunning {
            // Two connections announce one routing id; both write, then close.
            let first = try connection("m\(rounds)")
            flood(first, 200)
            usleep(10_000)
            let second = try connection("m\(rounds)")
            flood(first, 5_000)
            flood(second, 200)
            usleep(UInt32.random(in: 0..<20_000))
            first.close()
            second.close()
            rounds += 1
        }
        XCTAssertGreaterThanOrEqual(rounds, 20, "rounds run")
        XCTAssertGreaterThan(sample("photocluster_dropped_frames_total", metrics: coordinator.metrics) ?? 0, 0, "the coordinator read the junk")
        try await assertServing(coordinator, context: context)
    }

    /// The process still runs and a client's status request is answered.
    private func assertServing(_ coordinator: CurveCoordinatorProcess, context: ZMQContext) async throws {
        usleep(500_000)
        guard coordinator.isRunning else { return XCTFail("the coordinator stopped: \(coordinator.logText)") }
        let client = try ClusterClient(endpoint: coordinator.clientEndpoint, context: context, curve: coordinator.curve("client"))
        defer { client.close() }
        let status = try await client.status(timeout: 5)
        XCTAssertEqual(status.jobs.count, 0)
    }
}

/// Value of one series in the coordinator's /metrics.
private func sample(_ series: String, metrics: String) -> Double? {
    guard let body = try? PlainHTTPClient.send("GET", metrics).body else { return nil }
    for line in String(decoding: body, as: UTF8.self).split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}
