import Foundation

/// The routing ids that workers and clients announce to the coordinator's ROUTERs, made so that
/// no other peer can claim one.
///
/// A coordinator with CURVE keys never hands a routing id in use to another connection
/// (`ZMQSocket.makeStrictRouter`), but an id is free again as soon as its connection closes,
/// and libzmq's ZAP request carries the connecting key, not the routing id it will announce, nor
/// does libzmq 4.3 say when a connection is attached: the coordinator cannot refuse a connection
/// for the id it announces before the coordinator sends to that id. So the id itself is something
/// only its owner knows:
///
/// - a worker with CURVE keys announces its name, a slash and 32 hex digits of randomness new
///   for each socket (`worker(named:secret:)`); without CURVE, where any peer may call itself
///   anything, its name alone, as before;
/// - a client announces 16 random bytes.
///
/// Such an id travels only inside the CURVE handshake, encrypted, and the coordinator never logs
/// or shows it: another key could announce it only by guessing 128 random bits. The coordinator
/// sends a worker's messages to the id of the connection that spoke with the worker's registered
/// key (`CoordinatorNode.workerRoutes`), never to its name.
public enum RoutingIdentity {
    /// Hex digits of randomness after the slash of a CURVE worker's routing id.
    static let secretDigits = 32

    /// The routing id of a worker named `name`: with `secret`, its name, a slash and 128 random
    /// bits in hex; without, its name.
    public static func worker(named name: String, secret: Bool) -> Data {
        guard secret else { return Data(name.utf8) }
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<secretDigits / 16).map { _ in
            let value = generator.next() as UInt64
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        return Data("\(name)/\(digits)".utf8)
    }

    /// The worker name a routing id announces: what comes before a trailing slash and 32 hex
    /// digits, or the whole id (a worker without CURVE, or an older one); nil if it is not UTF-8.
    public static func workerName(of routingID: Data) -> String? {
        guard let text = String(data: routingID, encoding: .utf8) else { return nil }
        let utf8 = Array(text.utf8)
        let slash = utf8.count - secretDigits - 1
        guard slash > 0, utf8[slash] == UInt8(ascii: "/"),
            utf8[(slash + 1)...].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return text }
        return String(decoding: utf8[..<slash], as: UTF8.self)
    }

    /// A client's routing id: 16 random bytes, the first never zero (libzmq's own ids for peers
    /// that announce none start with a zero byte).
    public static func client() -> Data {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[0] = UInt8.random(in: 1...255, using: &generator)
        return Data(bytes)
    }
}
