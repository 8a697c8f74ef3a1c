import Foundation

/// What an authorised key may be: a `worker`, a `client`, or an `admin` (a client that may see
/// and act on every job, not only the jobs it submitted).
public enum KeyRole: String, CaseIterable, Sendable, Comparable {
    case worker, client, admin

    public static func < (lhs: KeyRole, rhs: KeyRole) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// "worker, client or admin", for messages.
    public static var choices: String { "worker, client or admin" }

    /// One bit per role, so a key's roles are checked on every message without building a set.
    var bit: UInt8 { 1 << UInt8(Self.allCases.firstIndex(of: self)!) }
}

/// The coordinator's two server sockets. Each has a ZAP domain of its own, so the ZAP handler
/// knows which socket a handshake is for and admits only keys whose role belongs there.
public enum ServerEndpoint: String, CaseIterable, Sendable {
    case workers, clients

    public var zapDomain: String { "photocluster.\(rawValue)" }

    /// The roles whose keys may connect here.
    public var admittedRoles: Set<KeyRole> { self == .workers ? [.worker] : [.client, .admin] }

    var admittedBits: UInt8 { self == .workers ? KeyRole.worker.bit : KeyRole.client.bit | KeyRole.admin.bit }

    /// "worker", "client": what a peer of this endpoint is, for messages.
    public var peerName: String { self == .workers ? "worker" : "client" }

    public init?(zapDomain: String) {
        guard let endpoint = Self.allCases.first(where: { $0.zapDomain == zapDomain }) else { return nil }
        self = endpoint
    }
}
