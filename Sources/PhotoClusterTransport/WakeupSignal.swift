import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking pipe that another thread signals to wake a thread blocked in `zmq_poll`.
public final class WakeupSignal: @unchecked Sendable {
    // The descriptors never change; pipe reads and writes of a byte are atomic in the kernel.
    public let fileDescriptor: Int32
    private let writeEnd: Int32

    public init() {
        var ends: [Int32] = [0, 0]
        let result = pipe(&ends)
        precondition(result == 0, "pipe failed: \(String(cString: strerror(errno)))")
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(fileDescriptor)
        close(writeEnd)
    }

    /// Wakes the poller; a full pipe already means "wake up", so a failed write is fine.
    public func signal() {
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    /// Clears pending signals.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(fileDescriptor, &buffer, buffer.count) > 0 {}
    }
}
