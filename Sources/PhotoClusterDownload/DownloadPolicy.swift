/// Which hosts and addresses transfers may reach. URL schemes are limited separately, by
/// `DownloadLimits.allowedSchemes`.
///
/// Entries, in either list:
/// - a host name, matched case-insensitively (`photos.example.com`); `*.example.com` matches
///   every subdomain but not `example.com` itself. Names are compared as the URL spells them
///   (international names in punycode), so they say nothing about an IP-literal URL.
/// - an IPv4 or IPv6 address (`10.1.2.3`, `::1`) or CIDR range (`10.0.0.0/8`, `fd00::/8`).
///   IPv4-mapped IPv6 addresses (`::ffff:169.254.169.254`) are matched as IPv4.
///
/// A request is refused if its host name or address is in the deny list, or, when the allow
/// list is not empty, if neither its host name nor its address is in the allow list. The deny
/// list wins over the allow list.
///
/// Unless `denyDefaults` is false, `defaultDeny` is added to the deny list: link-local and cloud
/// metadata addresses, and the unspecified addresses (`0.0.0.0`, `::`), which reach this host.
/// Loopback stays allowed by default, as demos serve photos on 127.0.0.1; deny it with
/// `127.0.0.0/8` and `::1/128`.
///
/// The policy is enforced by libcurl callbacks for the first request and for every redirect:
/// on the host name before it is resolved, on each address before a socket connects to it, and
/// on both again before the request is sent. Proxies from the environment are not used, since
/// the address checked must be the one the request goes to. A refusal fails the transfer with
/// `DownloadError.Kind.policy`.
public struct DownloadPolicy: Sendable {
    /// Allow-list entries as given.
    public let allow: [String]
    /// Deny-list entries as given, without `defaultDeny`.
    public let deny: [String]
    /// Whether `defaultDeny` is part of the deny list.
    public let denyDefaults: Bool
    /// The compiled rules, shared by copies of this policy and the transfers using it.
    let table: PolicyTable

    /// Entries denied unless `denyDefaults` is false, with the note quoted in refusals.
    static let defaults: [(entry: String, note: String)] = [
        ("169.254.0.0/16", "link-local / cloud metadata"),
        ("fe80::/10", "link-local / cloud metadata"),
        ("fd00:ec2::254/128", "link-local / cloud metadata"),
        ("0.0.0.0/8", "unspecified address, reaches this host"),
        ("::/128", "unspecified address, reaches this host"),
    ]

    /// The deny-list entries added when `denyDefaults` is true.
    public static var defaultDeny: [String] { defaults.map(\.entry) }

    /// No allow list; the default deny list only.
    public static let standard: DownloadPolicy = {
        do { return try DownloadPolicy() } catch { fatalError("default download policy: \(error)") }
    }()

    /// Parses the entries (surrounding whitespace is ignored); throws `DownloadPolicyError`
    /// naming the first entry that is neither a host name, an address nor a CIDR range.
    public init(allow: [String] = [], deny: [String] = [], denyDefaults: Bool = true) throws {
        let defaults = denyDefaults ? Self.defaults.map { (entry: $0.entry, note: Optional($0.note)) } : []
        table = try PolicyTable(allow: allow, deny: deny.map { (entry: $0, note: nil) } + defaults)
        self.allow = allow
        self.deny = deny
        self.denyDefaults = denyDefaults
    }

    /// Why a request to `host` (as in the URL) connecting to `address` would be refused, e.g.
    /// "host evil.example is not in the allow list"; nil if allowed. Without an address only
    /// the host name is judged (an IP-literal host counts as its address), and nil then means
    /// "not refused yet": an allowed range may still match the address it resolves to.
    public func refusal(host: String, address: String? = nil) -> String? {
        table.refusal(host: host, address: address)
    }
}

/// A download-policy entry that could not be parsed.
public struct DownloadPolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The entry as given.
    public let entry: String
    /// What is wrong with it, e.g. "the prefix length must be 0 to 32".
    public let reason: String

    public var description: String { "invalid download policy entry '\(entry)': \(reason)" }
}
