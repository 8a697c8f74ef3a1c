#if canImport(Glibc)
import Glibc
#endif

/// Facts about a connected TCP socket.
public enum TCPConnection {
    /// Whether the socket's two ends are one address and port: it connected to itself. A connect
    /// to a port of this host inside the kernel's ephemeral range (`net.ipv4.ip_local_port_range`),
    /// with nothing listening there, can be given that very port as its own, and TCP's
    /// simultaneous open then joins the socket to itself: every message it sends comes back.
    public static func isConnectedToItself(_ descriptor: Int32) -> Bool {
        guard let local = address(of: descriptor, getsockname), let peer = address(of: descriptor, getpeername) else { return false }
        return local == peer
    }

    /// Both ends of a connected socket as bytes (its own address and port, then its peer's), or
    /// nil if it is not a connected socket: two connections that share a descriptor number one
    /// after the other differ here.
    public static func ends(of descriptor: Int32) -> [UInt8]? {
        guard let local = address(of: descriptor, getsockname), let peer = address(of: descriptor, getpeername) else { return nil }
        return local + peer
    }

    /// The socket's address as bytes (family, port and address), or nil if it has none.
    private static func address(
        of descriptor: Int32, _ read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> [UInt8]? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { read(descriptor, $0, &length) }
        }
        guard status == 0, length > 0 else { return nil }
        return withUnsafeBytes(of: &storage) { Array($0.prefix(Int(length))) }
    }
}
