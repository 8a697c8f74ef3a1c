import CPluginHost
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Framed messages, each with at most one file descriptor, over one end of a UNIX stream
/// socketpair between a worker and its plugin host (the frame is described in
/// proto/plugin_host.proto).
///
/// Used by one thread at a time: on the worker, the thread that holds the host's lease; in the
/// host, its only thread. `@unchecked Sendable` for the hand-over between leases, which the
/// pool's lock orders.
final class HostChannel: @unchecked Sendable {
    /// Larger frames are a broken or hostile peer.
    static let maxFrameBytes = 64 << 20
    private static let headerBytes = 5

    enum Received {
        case message(Data, descriptor: Int32?)
        /// Nothing arrived within the wait.
        case nothingYet
        /// The peer closed its end (it ended).
        case closed
    }

    struct Broken: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var descriptor: Int32
    private var buffer = Data()
    /// Descriptors that arrived and have not been handed out with their frame yet, in order.
    private var descriptors: [Int32] = []
    private var chunk = [UInt8](repeating: 0, count: 64 << 10)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    func close() {
        for fd in descriptors { Glibc.close(fd) }
        descriptors.removeAll()
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Sends one frame; `passing` travels with it and stays open here.
    func send(_ payload: Data, passing fd: Int32? = nil) throws {
        var frame = Data(capacity: payload.count + Self.headerBytes)
        var length = UInt32(payload.count).littleEndian
        withUnsafeBytes(of: &length) { frame.append(contentsOf: $0) }
        frame.append(fd == nil ? 0 : 1)
        frame.append(payload)
        let status = frame.withUnsafeBytes { ph_send_all(descriptor, $0.baseAddress, $0.count, fd ?? -1) }
        if status != 0 { throw Broken(description: "cannot write to the socket: \(String(cString: strerror(-status)))") }
    }

    /// The next frame, waiting at most `timeoutMs` milliseconds for bytes (-1: for ever).
    func receive(timeoutMs: Int32) throws -> Received {
        while true {
            if let frame = try nextFrame() { return frame }
            let ready = ph_wait_readable(descriptor, timeoutMs)
            if ready == -EINTR { continue }
            if ready < 0 { throw Broken(description: "cannot wait for the socket: \(String(cString: strerror(-ready)))") }
            if ready == 0 { return .nothingYet }
            var fd: Int32 = -1
            let count = chunk.withUnsafeMutableBytes { ph_receive(descriptor, $0.baseAddress, $0.count, &fd) }
            if fd >= 0 { descriptors.append(fd) }
            if count < 0 { throw Broken(description: "cannot read the socket: \(String(cString: strerror(Int32(-count))))") }
            if count == 0 { return .closed }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    private func nextFrame() throws -> Received? {
        guard buffer.count >= Self.headerBytes else { return nil }
        let start = buffer.startIndex
        let length = Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 24
        let carriesDescriptor = buffer[start + 4] != 0
        guard length <= Self.maxFrameBytes else { throw Broken(description: "a frame of \(length) bytes is over the limit") }
        guard buffer.count >= Self.headerBytes + length else { return nil }
        var fd: Int32?
        if carriesDescriptor {
            // The descriptor rides on the frame's first byte, so it has arrived by now.
            guard !descriptors.isEmpty else { throw Broken(description: "a frame announced a descriptor that did not arrive") }
            fd = descriptors.removeFirst()
        }
        let payload = buffer.subdata(in: start + Self.headerBytes..<start + Self.headerBytes + length)
        buffer.removeSubrange(start..<start + Self.headerBytes + length)
        return .message(payload, descriptor: fd)
    }
}
