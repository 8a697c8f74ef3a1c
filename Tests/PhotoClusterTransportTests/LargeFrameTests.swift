import Foundation
import PhotoClusterCore
import PhotoClusterTransport
import XCTest

/// Large frames (an encoded photo) cross libzmq without copies: lent on send, wrapped on receive.
final class LargeFrameTests: XCTestCase {
    private var context: ZMQContext!

    override func setUpWithError() throws {
        context = try ZMQContext()
    }

    override func tearDown() {
        context.terminate()
    }

    /// A connected pair of sockets over `endpoint` (`tcp://127.0.0.1:*` picks a port).
    private func pair(over endpoint: String) throws -> (sender: ZMQSocket, receiver: ZMQSocket) {
        let receiver = try ZMQSocket(context: context, kind: .pair)
        try receiver.bind(endpoint)
        let sender = try ZMQSocket(context: context, kind: .pair)
        try sender.connect(receiver.lastEndpoint ?? endpoint)
        return (sender, receiver)
    }

    private func patterned(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) ^ seed })
    }

    func testFramesOfEverySizeArriveIntactOverInprocAndTCP() throws {
        for endpoint in ["inproc://large-frames-\(UUID().uuidString)", "tcp://127.0.0.1:*"] {
            let (sender, receiver) = try pair(over: endpoint)
            // Around the size where frames stop being copied, and well above it.
            let frames = [Data("envelope".utf8), Data(), patterned((16 << 10) - 1, seed: 1), patterned(16 << 10, seed: 2), patterned(3 << 20, seed: 3)]
            try sender.send(frames, dontWait: false)
            let received = try XCTUnwrap(receive(receiver, withinMs: 5000), "nothing arrived over \(endpoint)")
            XCTAssertEqual(received.map(\.count), frames.map(\.count), endpoint)
            XCTAssertEqual(received, frames, "the bytes changed on the way over \(endpoint)")
            sender.close()
            receiver.close()
        }
    }

    func testLentBytesStayUntilTheReceiverLetsGoOfThem() throws {
        let (sender, receiver) = try pair(over: "inproc://lent-frames-\(UUID().uuidString)")
        let released = LockedBox(false)
        let count = 1 << 20
        try sendLentFrame(count: count, on: sender) { released.withLock { $0 = true } }
        var received = try XCTUnwrap(receive(receiver, withinMs: 5000))
        // Over inproc the receiver holds the sender's own buffer: nothing was copied, so it is still there.
        XCTAssertFalse(released.current, "the sent buffer was freed while the receiver still holds the frame")
        XCTAssertEqual(received[0], Data(repeating: 0xA5, count: count))
        received.removeAll()
        XCTAssertTrue(waitUntil(timeoutMs: 2000) { released.current }, "the sent buffer was never freed")
        sender.close()
        receiver.close()
    }

    /// Sends one frame over a buffer of ours, whose release calls `onRelease`; keeps no reference to it.
    private func sendLentFrame(count: Int, on socket: ZMQSocket, dontWait: Bool = false, onRelease: @escaping () -> Void) throws {
        let buffer = malloc(count)!
        memset(buffer, 0xA5, count)
        let data = Data(bytesNoCopy: buffer, count: count, deallocator: .custom { pointer, _ in
            free(pointer)
            onRelease()
        })
        try socket.send([data], dontWait: dontWait)
    }

    func testAFrameThatCannotBeSentIsGivenBack() throws {
        // A pair socket that is not connected cannot send without waiting: the frame stays ours.
        let lonely = try ZMQSocket(context: context, kind: .pair)
        let released = LockedBox(false)
        XCTAssertThrowsError(try sendLentFrame(count: 1 << 20, on: lonely, dontWait: true) { released.withLock { $0 = true } }) { error in
            XCTAssertTrue((error as? ZMQError)?.isWouldBlock == true, "\(error)")
        }
        XCTAssertTrue(released.current, "a frame libzmq refused was never released")
        lonely.close()
    }
}
