import Foundation

/// The CURVE public keys allowed to connect, each with a label for logs and the roles it may take.
///
/// Sources are files or directories (see `AuthorizedKeys+Loading.swift` for the formats). A key
/// listed with roles has exactly the roles listed for it (several lines may give it several). A
/// key listed without a role, as every key was before roles existed, may connect as a worker and
/// as a client, as it could then; `keysWithoutRole` names such keys so the coordinator can ask
/// for a role.
public struct AuthorizedKeys: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public internal(set) var label: String
        /// The roles given for it; empty when it was listed without one.
        public internal(set) var givenRoles: Set<KeyRole> {
            didSet { roleBits = (givenRoles.isEmpty ? [.worker, .client] : givenRoles).reduce(0) { $0 | $1.bit } }
        }
        /// `roles` as bits, for the check every message passes.
        private(set) var roleBits: UInt8 = KeyRole.worker.bit | KeyRole.client.bit
        /// An HTTP API token's holder (`token` lines), never a CURVE key: refused on the sockets.
        public internal(set) var isToken = false

        init(label: String, givenRoles: Set<KeyRole>) {
            self.label = label
            self.givenRoles = givenRoles
            roleBits = (givenRoles.isEmpty ? [.worker, .client] : givenRoles).reduce(0) { $0 | $1.bit }
        }

        /// What it may be: its given roles, or worker and client for a key listed without one.
        public var roles: Set<KeyRole> { givenRoles.isEmpty ? [.worker, .client] : givenRoles }
    }

    var entries: [String: Entry] = [:]
    /// Each API token's digest (`APIToken.digest`), and the principal it stands for.
    var tokens: [String: String] = [:]
    /// The S3 locations each key may read and write (`grant` lines; see `S3Grant`).
    var grants: [String: [S3Grant]] = [:]
    /// Where each key's first grant was read, for the error when the key is not listed.
    var grantSources: [String: GrantSource] = [:]

    struct GrantSource: Sendable, Equatable {
        let file: URL
        let line: Int
    }

    public init() {}

    public init(contentsOf sources: [URL]) throws {
        for source in sources { try load(source) }
        // A grant is for a key listed with a role: a grant alone gives no right to connect.
        if let source = grantSources.filter({ entries[$0.key] == nil }).values.min(by: { ($0.file.path, $0.line) < ($1.file.path, $1.line) }) {
            throw CurveKeyError(file: source.file, line: source.line, .grantForUnlistedKey)
        }
    }

    public init(contentsOf source: URL) throws {
        try self.init(contentsOf: [source])
    }

    public func contains(_ key: String) -> Bool { entries[key] != nil }

    public func label(for key: String) -> String? { entries[key]?.label }

    public func entry(for key: String) -> Entry? { entries[key] }

    /// The roles `key` may take; empty for a key that is not authorised.
    public func roles(of key: String) -> Set<KeyRole> { entries[key]?.roles ?? [] }

    /// An admin key may see and act on every job.
    public func isAdmin(_ key: String) -> Bool { (entries[key]?.roleBits ?? 0) & KeyRole.admin.bit != 0 }

    public var keys: Set<String> { Set(entries.keys) }

    /// The principal (`token:NAME`) an HTTP API token stands for, or nil for a token not listed.
    public func principal(forToken token: String) -> String? { tokens[APIToken.digest(of: token)] }

    /// How many API tokens are listed.
    public var tokenCount: Int { tokens.count }

    public var count: Int { entries.count }

    /// Keys listed without a role, sorted by label.
    public var keysWithoutRole: [(key: String, label: String)] {
        entries.filter { $0.value.givenRoles.isEmpty }.map { ($0.key, $0.value.label) }.sorted { $0.label < $1.label }
    }

    /// How many keys may take each role (a key with two roles counts for both).
    public var countsByRole: [KeyRole: Int] {
        entries.values.filter { !$0.isToken }.reduce(into: [:]) { counts, entry in
            for role in entry.roles { counts[role, default: 0] += 1 }
        }
    }

    /// Why `key` may not connect to `endpoint`, or nil when it may. Checked on every message:
    /// the answer for an admitted key costs a lookup.
    public func refusal(of key: String, at endpoint: ServerEndpoint) -> String? {
        guard let entry = entries[key], !entry.isToken else { return "key \(key) is not in the authorized keys" }
        guard entry.roleBits & endpoint.admittedBits == 0 else { return nil }
        let admitted = endpoint.admittedRoles.sorted().map(\.rawValue).joined(separator: " or ")
        return "key \(key) (\(entry.label)) is a \(Self.describe(entry.roles)) key; only \(admitted) keys may connect as a \(endpoint.peerName)"
    }

    /// `key (label, roles)`, for log lines.
    public func describe(_ key: String) -> String {
        guard let entry = entries[key] else { return "key \(key) (not authorized)" }
        return "key \(key) (\(entry.label), \(Self.describe(entry.roles)))"
    }

    static func describe(_ roles: Set<KeyRole>) -> String {
        roles.sorted().map(\.rawValue).joined(separator: " and ")
    }

    /// Adds a key with `role`, or without a role when nil. A label is kept from the first time
    /// the key is seen; roles accumulate.
    public mutating func insert(_ key: String, label: String, role: KeyRole? = nil) throws {
        try Z85.requireKey(key)
        add(key, label: label, role: role)
    }

    mutating func add(_ key: String, label: String, role: KeyRole?) {
        var entry = entries[key] ?? Entry(label: label, givenRoles: [])
        if let role { entry.givenRoles.insert(role) }
        entries[key] = entry
    }
}
