import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A failed socket call.
struct SocketError: Error, CustomStringConvertible {
    let operation: String
    let code: Int32
    var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
}

/// The few POSIX socket calls the server needs.
enum Socket {
    /// A listening TCP socket on 127.0.0.1; returns it and the bound port.
    static func listenLoopback(port: UInt16) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound, listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw SocketError(operation: "bind/listen on 127.0.0.1:\(port)", code: code)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Bounds how long a blocking send or receive may take, so a stuck client frees its thread.
    static func setTimeouts(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, size)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, size)
    }

    /// Sends small writes at once: on a kept-alive connection, the tail of a body must not wait
    /// for the client's delayed acknowledgement (Nagle's algorithm).
    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Reads up to and including the blank line that ends the request head; nil on EOF, error,
    /// timeout or a head over `limit` bytes. Bytes after the head are dropped.
    static func readHead(_ fd: Int32, limit: Int = 64 << 10) -> Data? {
        var head = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator = Data("\r\n\r\n".utf8)
        while head.count <= limit {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            let searchFrom = max(0, head.count - 3)
            head.append(contentsOf: buffer[0..<count])
            if let end = head.range(of: terminator, in: searchFrom..<head.count) {
                return head.prefix(upTo: end.upperBound)
            }
        }
        return nil
    }

    /// Sends everything; false if the peer went away or the send timed out. Never raises SIGPIPE.
    static func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// Waits up to `seconds`, discarding anything the client sends; true as soon as the client
    /// has closed its side (or `cancelled()` turns true).
    static func waitForHangup(_ fd: Int32, seconds: Double, cancelled: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            if cancelled() { return true }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return false }
            // Short slices so a stop() is noticed quickly.
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 0.05) * 1000) + 1)
            if ready < 0 && errno != EINTR { return true }
            guard ready > 0 else { continue }
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return true }
        }
    }
}
