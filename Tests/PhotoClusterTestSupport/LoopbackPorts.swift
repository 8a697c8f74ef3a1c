import Foundation

/// Consecutive TCP ports on 127.0.0.1 for a test's coordinator, none of them bound now.
///
/// They come from below the kernel's ephemeral range (`ip_local_port_range`): a worker keeps
/// reconnecting to a coordinator that is not up yet, and when the port it dials is one the
/// kernel may also pick as a source port, the connection can meet itself (a TCP self-connect)
/// and hold the port the coordinator then fails to bind.
public enum LoopbackPorts {
    public static func consecutive(_ count: Int) -> Int {
        let ceiling = ephemeralRangeStart() - count
        for _ in 0..<200 {
            let base = Int.random(in: 20_000...max(20_001, ceiling))
            if (base..<base + count).allSatisfy(isFree) { return base }
        }
        return Int.random(in: 20_000...max(20_001, ceiling))
    }

    private static func ephemeralRangeStart() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
    }

    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
