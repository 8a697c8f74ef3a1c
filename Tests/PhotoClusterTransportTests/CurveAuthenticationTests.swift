import Foundation
import PhotoClusterCore
import PhotoClusterTransport
import XCTest

/// Real libzmq sockets over loopback TCP: a CURVE ROUTER server and DEALER clients.
final class CurveAuthenticationTests: XCTestCase {
    private struct Decision: Equatable {
        let key: String
        let accepted: Bool
        let address: String
    }

    private let zapDomain = "photocluster-test"
    private var context: ZMQContext!
    private var handler: ZAPHandler?
    private var sockets: [ZMQSocket] = []
    private var monitors: [SocketMonitor] = []
    private let decisions = LockedBox<[Decision]>([])
    private var serverKeys: CurveKeyPair!
    private var clientA: CurveKeyPair!
    private var clientB: CurveKeyPair!

    override func setUpWithError() throws {
        try XCTSkipUnless(ZMQContext.hasCurve, "libzmq without CURVE")
        context = try ZMQContext()
        serverKeys = try CurveKeyPair.generate()
        clientA = try CurveKeyPair.generate()
        clientB = try CurveKeyPair.generate()
    }

    override func tearDown() {
        // Monitors, then sockets, then the handler: the context only terminates once all are closed.
        monitors.forEach { $0.close() }
        sockets.reversed().forEach { $0.close() }
        handler?.stop()
        context?.terminate()
    }

    func testAuthorizedClientDeliversAndGetsTheReply() throws {
        let (server, endpoint) = try startServer(authorizing: [clientA])
        let client = try makeClient(clientA)
        let monitor = try monitor(client)
        try client.connect(endpoint)
        try client.send([Data("hello".utf8)])

        let request = try XCTUnwrap(try receive(server, withinMs: 2000), "the authorized client's message arrives")
        XCTAssertEqual(request.count, 2)
        XCTAssertEqual(request.last, Data("hello".utf8))
        try server.send([request[0], Data("world".utf8)])
        XCTAssertEqual(try receive(client, withinMs: 2000), [Data("world".utf8)])

        let seen = events(from: monitor, withinMs: 2000) { $0 == .handshakeSucceeded(endpoint: endpoint) }
        XCTAssertTrue(seen.contains { if case .connected(endpoint, _) = $0 { return true } else { return false } }, "\(seen)")
        XCTAssertTrue(seen.contains(.handshakeSucceeded(endpoint: endpoint)), "\(seen)")
        XCTAssertFalse(seen.contains { $0.isHandshakeFailure }, "\(seen)")

        XCTAssertEqual(handler?.acceptedCount, 1)
        XCTAssertEqual(handler?.refusedCount, 0)
        XCTAssertEqual(decisions.current, [Decision(key: clientA.publicKey, accepted: true, address: "127.0.0.1")])

        // Closing the monitor while the socket lives leaves the socket working.
        monitor.close()
        try client.send([Data("again".utf8)])
        XCTAssertEqual(try receive(server, withinMs: 2000)?.last, Data("again".utf8))
    }

    func testUnauthorizedClientIsRefusedAndItsMonitorSaysSo() throws {
        let (server, endpoint) = try startServer(authorizing: [clientA])
        let client = try makeClient(clientB)
        let monitor = try monitor(client)
        try client.connect(endpoint)
        try sendFromARefusedClient(client, [Data("let me in".utf8)])

        let seen = events(from: monitor, withinMs: 2000) { $0.isHandshakeFailure }
        XCTAssertTrue(seen.contains(.handshakeFailedAuth(endpoint: endpoint, statusCode: 400)), "\(seen)")
        XCTAssertFalse(seen.contains(.handshakeSucceeded(endpoint: endpoint)), "\(seen)")
        XCTAssertEqual(try messagesBeforeAProbe(to: server, at: endpoint), [], "a refused client delivers nothing")

        // Still one refusal after three reconnect intervals (100 ms each): a refused client does
        // not retry by itself. A timer that must not fire is what is tested here.
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(handler?.refusedCount, 1)
        XCTAssertEqual(handler?.acceptedCount, 1, "only the probe's client")
        XCTAssertEqual(decisions.current.filter { $0.key == clientB.publicKey }, [Decision(key: clientB.publicKey, accepted: false, address: "127.0.0.1")])
    }

    func testPlainClientCannotDeliver() throws {
        let (server, endpoint) = try startServer(authorizing: [clientA])
        let client = try makeClient(nil)
        try client.connect(endpoint)
        try sendFromARefusedClient(client, [Data("plain".utf8)])

        XCTAssertEqual(try messagesBeforeAProbe(to: server, at: endpoint), [], "a client without CURVE delivers nothing")
        // The mechanisms differ (NULL against CURVE), so libzmq drops it before asking the handler.
        XCTAssertEqual(handler?.acceptedCount, 1, "only the probe's client")
        XCTAssertEqual(handler?.refusedCount, 0)
    }

    func testWithoutAHandlerAnyClientKnowingTheServerKeyGetsIn() throws {
        // The pitfall the handler exists for: libzmq's CURVE server alone checks nothing about clients.
        let (server, endpoint) = try startServer(authorizing: nil)
        let client = try makeClient(clientB)
        try client.connect(endpoint)
        try client.send([Data("anyone".utf8)])
        XCTAssertEqual(try receive(server, withinMs: 2000)?.last, Data("anyone".utf8))
    }

    func testNewKeysLetARefusedClientInOnANewSocket() throws {
        let (server, endpoint) = try startServer(authorizing: [clientA])
        let refused = try makeClient(clientB)
        let refusedMonitor = try monitor(refused)
        try refused.connect(endpoint)
        XCTAssertTrue(events(from: refusedMonitor, withinMs: 2000) { $0.isHandshakeFailure }
            .contains(.handshakeFailedAuth(endpoint: endpoint, statusCode: 400)))

        var rotated = AuthorizedKeys()
        try rotated.insert(clientB.publicKey, label: "B")
        handler?.authorizedKeys = rotated
        let retry = try makeClient(clientB)
        try retry.connect(endpoint)
        try retry.send([Data("second try".utf8)])
        XCTAssertEqual(try receive(server, withinMs: 2000)?.last, Data("second try".utf8))
        XCTAssertEqual(handler?.refusedCount, 1)
        XCTAssertEqual(handler?.acceptedCount, 1)
    }

    func testOneHandlerPerContext() throws {
        let first = ZAPHandler(context: context, authorizedKeys: AuthorizedKeys())
        try first.start()
        let second = ZAPHandler(context: context, authorizedKeys: AuthorizedKeys())
        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual((error as? ZMQError)?.errno, EADDRINUSE, "\(error)")
        }
        first.stop()
        // libzmq frees the endpoint once its reaper has finished with the closed socket, soon after.
        XCTAssertTrue(waitUntil(timeoutMs: 1000) { (try? second.start()) != nil })
        second.stop()
    }

    // MARK: - Helpers

    /// A CURVE ROUTER bound to a free loopback port, behind a handler authorizing `clients` (nil: no handler).
    /// What `server` received before a message an authorized client sends now: a message the
    /// client under test got through would be there (it was sent first, and its connection was
    /// settled, one way or the other, before the probe's began).
    private func messagesBeforeAProbe(to server: ZMQSocket, at endpoint: String) throws -> [Data] {
        let prober = try makeClient(clientA)
        try prober.connect(endpoint)
        try prober.send([Data("probe".utf8)])
        var before: [Data] = []
        while let message = try receive(server, withinMs: 5000), message.last != Data("probe".utf8) {
            before.append(message.last ?? Data())
        }
        while let message = try server.receive() { before.append(message.last ?? Data()) }
        return before
    }

    private func startServer(authorizing clients: [CurveKeyPair]?) throws -> (ZMQSocket, String) {
        if let clients {
            var authorized = AuthorizedKeys()
            for (index, keys) in clients.enumerated() { try authorized.insert(keys.publicKey, label: "client-\(index)") }
            let decisions = decisions
            let handler = ZAPHandler(context: context, authorizedKeys: authorized) { decision in
                decisions.withLock { $0.append(Decision(key: decision.key, accepted: decision.accepted, address: decision.address)) }
            }
            try handler.start()
            self.handler = handler
        }
        let server = try ZMQSocket(context: context, kind: .router)
        sockets.append(server)
        try server.makeStrictRouter(handover: false)
        try server.makeCurveServer(secretKey: serverKeys.secretKey, zapDomain: zapDomain)
        try server.bind("tcp://127.0.0.1:*")
        return (server, try XCTUnwrap(server.lastEndpoint))
    }

    /// A refused client's message is either queued (and then never delivered) or, once libzmq has
    /// already dropped the failed connection, refused at once for want of a pipe: both deliver nothing.
    private func sendFromARefusedClient(_ client: ZMQSocket, _ frames: [Data]) throws {
        do {
            try client.send(frames)
        } catch let error as ZMQError where error.isWouldBlock {}
    }

    /// A DEALER with `keys` as a CURVE client of the server, or a plain one for nil.
    private func makeClient(_ keys: CurveKeyPair?) throws -> ZMQSocket {
        let client = try ZMQSocket(context: context, kind: .dealer)
        sockets.append(client)
        if let keys { try client.makeCurveClient(serverPublicKey: serverKeys.publicKey, keys: keys) }
        return client
    }

    private func monitor(_ socket: ZMQSocket) throws -> SocketMonitor {
        let monitor = try SocketMonitor(socket: socket, context: context)
        monitors.append(monitor)
        return monitor
    }
}
