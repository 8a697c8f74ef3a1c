import CZeroMQ
import Foundation

/// One frame's bytes in and out of libzmq. Frames of `zeroCopyBytes` or more cross without a
/// copy: a sent frame lends its `Data`'s buffer to libzmq until libzmq lets go of it, and a
/// received one becomes a `Data` over libzmq's own buffer, released with the last copy of that
/// `Data`. An encoded photo then goes from a worker's encoder to the coordinator's file writer
/// without being copied on the way (over `inproc://`), and without two copies per hop over tcp.
enum ZMQFrame {
    /// Below this, a copy costs less than the bookkeeping that avoids it.
    static let zeroCopyBytes = 16 << 10

    /// Sends one frame, retrying when a signal interrupts; returns false with `zmq_errno()` set.
    static func send(_ frame: Data, on socket: UnsafeMutableRawPointer, flags: Int32) -> Bool {
        guard frame.count >= zeroCopyBytes else {
            return frame.withUnsafeBytes { raw in
                while zmq_send(socket, raw.baseAddress, raw.count, flags) < 0 {
                    if zmq_errno() != EINTR { return false }
                }
                return true
            }
        }
        let lender = FrameLender(frame)
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        defer { message.deallocate() }
        let hint = Unmanaged.passRetained(lender).toOpaque()
        // libzmq calls this once it no longer needs the bytes (on its own I/O thread, or on the
        // thread that closes the last copy of the message): that lets go of the Data.
        zmq_msg_init_data(message, lender.base, lender.count, { _, hint in
            Unmanaged<FrameLender>.fromOpaque(hint!).release()
        }, hint)
        while zmq_msg_send(message, socket, flags) < 0 {
            if zmq_errno() != EINTR {
                let error = zmq_errno()
                zmq_msg_close(message)  // not sent, so still ours: closing it lets go of the Data
                errno = error
                return false
            }
        }
        return true
    }

    /// The bytes of a received frame. A large frame's buffer is moved out of `message` (left
    /// empty) into a `Data` that closes it when it is released.
    static func take(_ message: UnsafeMutablePointer<zmq_msg_t>) -> Data {
        let size = zmq_msg_size(message)
        guard size >= zeroCopyBytes else { return size == 0 ? Data() : Data(bytes: zmq_msg_data(message), count: size) }
        let kept = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        zmq_msg_init(kept)
        zmq_msg_move(kept, message)
        return Data(bytesNoCopy: zmq_msg_data(kept), count: size, deallocator: .custom { _, _ in
            zmq_msg_close(kept)
            kept.deallocate()
        })
    }
}

/// Keeps a sent frame's `Data` alive, and never mutated, while libzmq reads its buffer: a Data
/// of this size is heap storage, whose bytes stay where they are while nothing writes to them.
private final class FrameLender {
    let data: Data
    let base: UnsafeMutableRawPointer
    var count: Int { data.count }

    init(_ data: Data) {
        self.data = data
        self.base = data.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress!) }
    }
}
