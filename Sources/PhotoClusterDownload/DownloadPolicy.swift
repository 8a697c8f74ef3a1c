import CCurlShim

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
/// Unless `denyDefaults` is false, addresses that reach the worker's own host or its cloud's
/// services are refused whatever the lists say (`AddressReach.refusedByDefault`): loopback
/// (`127.0.0.0/8`, `::1`), link-local (`169.254.0.0/16`, `fe80::/10`), cloud metadata,
/// unspecified (`0.0.0.0/8`, `::`) and carrier-grade NAT (`100.64.0.0/10`) addresses, every
/// other range of the IANA special-purpose registries that is not globally reachable
/// (multicast, documentation, benchmarking, reserved, local-use NAT64 `64:ff9b:1::/48`, Teredo
/// `2001::/32`), and IPv6 forms that embed one of them (IPv4-mapped, IPv4-compatible, NAT64
/// `64:ff9b::/96`, 6to4 `2002::/16`; NAT64 and 6to4 embedding a private address too, which
/// their RFCs forbid). `allowLoopback` lets loopback through (demos and tests serve photos on
/// 127.0.0.1); nothing else of these can be allowed. Private ranges (`10.0.0.0/8`,
/// `172.16.0.0/12`, `192.168.0.0/16`, `fc00::/7`) stay allowed: photo stores live there.
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
    /// Whether the addresses of `AddressReach.refusedByDefault` are refused.
    public let denyDefaults: Bool
    /// Whether loopback addresses are allowed although `denyDefaults` is true.
    public let allowLoopback: Bool
    /// The compiled rules, shared by copies of this policy and the transfers using it.
    let table: PolicyTable

    /// The ranges `denyDefaults` refuses, for documentation and messages (the embedded IPv6
    /// forms of the IPv4 ones are refused too).
    public static let defaultDeny: [String] = [
        "127.0.0.0/8", "::1/128", "169.254.0.0/16", "fe80::/10", "fd00:ec2::254/128", "100.100.100.200/32",
        "0.0.0.0/8", "::/128", "100.64.0.0/10",
        "224.0.0.0/4", "ff00::/8", "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32", "3fff::/20",
        "198.18.0.0/15", "2001:2::/48", "240.0.0.0/4", "192.0.0.0/24", "192.88.99.0/24", "100::/64", "2001::/23",
        "5f00::/16", "fec0::/10", "64:ff9b:1::/48", "2001::/32",
    ]

    /// The classes of address refused.
    public var refusedReach: Set<AddressReach> {
        guard denyDefaults else { return [] }
        return allowLoopback ? AddressReach.refusedByDefault.subtracting([.loopback]) : AddressReach.refusedByDefault
    }

    /// No lists; the default refusals only (loopback included).
    public static let standard: DownloadPolicy = {
        do { return try DownloadPolicy() } catch { fatalError("default download policy: \(error)") }
    }()

    /// No lists; the default refusals but loopback, for a cluster whose photos are served on the
    /// host itself (the demo, the embedded cluster, tests).
    public static let loopbackAllowed: DownloadPolicy = {
        do { return try DownloadPolicy(allowLoopback: true) } catch { fatalError("download policy: \(error)") }
    }()

    /// The same lists, with loopback allowed.
    public func allowingLoopback() -> DownloadPolicy {
        if allowLoopback { return self }
        do { return try DownloadPolicy(allow: allow, deny: deny, denyDefaults: denyDefaults, allowLoopback: true) } catch {
            fatalError("download policy entries that parsed once: \(error)")
        }
    }

    /// Parses the entries (surrounding whitespace is ignored); throws `DownloadPolicyError`
    /// naming the first entry that is neither a host name, an address nor a CIDR range.
    public init(allow: [String] = [], deny: [String] = [], denyDefaults: Bool = true, allowLoopback: Bool = false) throws {
        self.allow = allow
        self.deny = deny
        self.denyDefaults = denyDefaults
        self.allowLoopback = allowLoopback
        table = try PolicyTable(allow: allow, deny: deny.map { (entry: $0, note: nil) })
        table.refuse(refusedReach)
    }

    /// Why a request to `host` (as in the URL) connecting to `address` would be refused, e.g.
    /// "host evil.example is not in the allow list" or "127.0.0.1 is a loopback address"; nil
    /// if allowed. Without an address only
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

/// Where an address leads, as the download policy sees it. Every range of the IANA IPv4 and
/// IPv6 special-purpose address registries has a class; the few ranges there that are globally
/// reachable (the PCP and TURN anycast addresses, AMT, AS112, ORCHIDv2, DRIP) are `internet`.
/// IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:0:0/96`, IPv4-translated
/// `::ffff:0:0:0/96`, IPv4-compatible `::/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) lead where
/// the IPv4 address does, except that a NAT64 or 6to4 form of a private address is `tunnelled`.
public enum AddressReach: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// Anything not below.
    case internet = 0
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, `fc00::/7`: allowed, photo stores live there.
    case privateNetwork
    /// `127.0.0.0/8`, `::1`: the worker's own host.
    case loopback
    /// `169.254.0.0/16`, `fe80::/10`.
    case linkLocal
    /// Cloud instance metadata: `169.254.169.254`, `fd00:ec2::254`, `100.100.100.200`.
    case cloudMetadata
    /// `0.0.0.0/8`, `::`: connecting to them reaches the worker's own host.
    case unspecified
    /// Carrier-grade NAT, `100.64.0.0/10` (shared address space).
    case carrierGradeNAT
    /// `224.0.0.0/4`, `ff00::/8`.
    case multicast
    /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`, `3fff::/20`.
    case documentation
    /// `198.18.0.0/15`, `2001:2::/48`.
    case benchmarking
    /// `240.0.0.0/4` (with the broadcast address), IETF protocol assignments `192.0.0.0/24` and
    /// `2001::/23`, the old 6to4 relay `192.88.99.0/24`, discard-only `100::/64`, SRv6 `5f00::/16`,
    /// site-local `fec0::/10`, and all IPv6 outside global unicast `2000::/3` not named elsewhere.
    case reserved
    /// Through a translator or relay whose far side the address does not tell: local-use NAT64
    /// `64:ff9b:1::/48`, Teredo `2001::/32`, NAT64 and 6to4 forms of a private address.
    case tunnelled

    /// The classes a worker refuses unless told otherwise: all but `internet` and `privateNetwork`.
    public static let refusedByDefault: Set<AddressReach> = Set(allCases).subtracting([.internet, .privateNetwork])

    /// The class of an IP address (brackets allowed), nil if `address` is not one.
    public init?(address: String) {
        guard let reach = Self.classify(address) else { return nil }
        self = reach.reach
    }

    /// The class of an IP address and the IPv4 address an IPv6 form embeds, if any.
    public static func classify(_ address: String) -> (reach: AddressReach, embeddedIPv4: String?)? {
        var embedded = [CChar](repeating: 0, count: 64)
        let raw = pc_reach_classify(address, &embedded, embedded.count)
        guard raw >= 0, let reach = AddressReach(rawValue: raw) else { return nil }
        let inner = embedded.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (reach, inner.isEmpty ? nil : inner)
    }

    /// As in refusals: "loopback", "link-local", "cloud metadata", ...
    public var description: String { String(cString: pc_reach_name(rawValue)) }

    /// What a refusal tells the client to do about it.
    var advice: String {
        switch self {
        case .loopback:
            return "the worker refuses loopback addresses; start workers with --allow-loopback to allow them"
        case .linkLocal, .cloudMetadata, .unspecified, .carrierGradeNAT:
            return "the worker refuses \(self) addresses, which reach its own host or its cloud's services"
        default:
            return "the worker refuses \(self) addresses, which are not globally reachable"
        }
    }
}
