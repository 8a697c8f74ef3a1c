import Foundation
import PhotoClusterTransport
import XCTest

/// A ROUTER made with `makeStrictRouter(handover: false)` over loopback TCP: a routing id stays
/// with the connection that holds it, and `PeerEvictor` drops one connection and no other.
final class StrictRouterTests: XCTestCase {
    private var context: ZMQContext!
    private var sockets: [ZMQSocket] = []

    override func setUpWithError() throws {
        context = try ZMQContext()
    }

    override func tearDown() {
        sockets.reversed().forEach { $0.close() }
        context?.terminate()
    }

    func testARoutingIDInUseIsNeverHandedToASecondConnection() throws {
        let (router, endpoint) = try makeRouter()
        let monitor = try SocketMonitor(socket: router, context: context, events: .handshakeSucceeded)
        defer { monitor.close() }
        let holder = try dealer("wc", to: endpoint)
        try holder.send([Data("hello".utf8)])
        XCTAssertEqual(try received(by: router)?.frames.first, Data("wc".utf8))
        let claimant = try dealer("wc", to: endpoint)
        // Both connections' handshakes are done: the claimant's is attached at the ROUTER's next call.
        var handshakes = 0
        XCTAssertTrue(waitUntil(timeoutMs: 2000) {
            handshakes += monitor.poll(timeoutMs: 10).filter { if case .handshakeSucceeded = $0 { return true } else { return false } }.count
            return handshakes == 2
        })
        for index in 0..<5 { try router.send([Data("wc".utf8), Data("for wc \(index)".utf8)]) }
        for index in 0..<5 { XCTAssertEqual(try receive(holder, withinMs: 1000), [Data("for wc \(index)".utf8)]) }
        XCTAssertNil(try receive(claimant, withinMs: 200), "nothing reaches the second connection")
    }

    func testEvictDropsThatConnectionOnly() throws {
        let (router, endpoint) = try makeRouter()
        let evictor = PeerEvictor()
        let a = try dealer("a", to: endpoint), b = try dealer("b", to: endpoint)
        try a.send([Data("from a".utf8)])
        try b.send([Data("from b".utf8)])
        for _ in 0..<2 {
            let message = try XCTUnwrap(try received(by: router))
            XCTAssertNotNil(message.descriptor, "a TCP message names its connection's socket")
            evictor.note(message.frames[0], descriptor: message.descriptor)
        }
        XCTAssertEqual(evictor.count, 2)

        XCTAssertTrue(evictor.evict(Data("a".utf8)))
        // The ROUTER tears a's connection down: sends to it fail (ROUTER_MANDATORY), b's still arrive.
        XCTAssertTrue(waitUntil(timeoutMs: 2000) { (try? router.send([Data("a".utf8), Data("x".utf8)])) == nil })
        try router.send([Data("b".utf8), Data("still here".utf8)])
        XCTAssertEqual(try receive(b, withinMs: 1000), [Data("still here".utf8)])

        // A connection that has closed is not shut down again, whatever now has its descriptor.
        b.close()
        XCTAssertTrue(waitUntil(timeoutMs: 2000) { (try? router.send([Data("b".utf8), Data("x".utf8)])) == nil })
        XCTAssertFalse(evictor.evict(Data("b".utf8)))
        evictor.forgetClosed()
        XCTAssertEqual(evictor.count, 0)
    }

    private func makeRouter() throws -> (ZMQSocket, String) {
        let router = try ZMQSocket(context: context, kind: .router)
        sockets.append(router)
        try router.makeStrictRouter(handover: false)
        try router.bind("tcp://127.0.0.1:*")
        return (router, try XCTUnwrap(router.lastEndpoint))
    }

    private func dealer(_ id: String, to endpoint: String) throws -> ZMQSocket {
        let socket = try ZMQSocket(context: context, kind: .dealer)
        sockets.append(socket)
        try socket.setRoutingID(id)
        try socket.connect(endpoint)
        return socket
    }

    private func received(by router: ZMQSocket) throws -> ZMQSocket.Received? {
        var message: ZMQSocket.Received?
        _ = waitUntil(timeoutMs: 2000) {
            message = try? router.receiveWithUserID()
            return message != nil
        }
        return message
    }
}
