import PhotoClusterDownload
import XCTest

/// The policy matcher on its own: entries, ranges, names and the reasons it gives.
final class DownloadPolicyTests: XCTestCase {
    func testIPv4Ranges() throws {
        let policy = try DownloadPolicy(deny: ["10.0.0.0/8", "192.168.0.0/17"])
        XCTAssertEqual(policy.refusal(host: "10.1.2.3"), "10.1.2.3 is in the denied range 10.0.0.0/8")
        XCTAssertNil(policy.refusal(host: "11.0.0.1"))
        XCTAssertNotNil(policy.refusal(host: "192.168.127.255"))
        XCTAssertNil(policy.refusal(host: "192.168.128.0"))   // just past the /17
        XCTAssertEqual(
            policy.refusal(host: "files.example", address: "10.9.9.9"),
            "host files.example resolved to 10.9.9.9, which is in the denied range 10.0.0.0/8")
        XCTAssertNil(policy.refusal(host: "files.example"))   // a name alone says nothing about ranges
    }

    func testIPv6Ranges() throws {
        let policy = try DownloadPolicy(deny: ["fd00::/8", "2001:db8::/33"], denyDefaults: false)
        XCTAssertEqual(policy.refusal(host: "[fd12:3456::1]"), "fd12:3456::1 is in the denied range fd00::/8")
        XCTAssertNil(policy.refusal(host: "fe00::1"))
        XCTAssertNotNil(policy.refusal(host: "a.example", address: "2001:db8:7fff::1"))
        XCTAssertNil(policy.refusal(host: "a.example", address: "2001:db8:8000::1"))
    }

    func testPrefixLengthsZeroAndFull() throws {
        let everyIPv4 = try DownloadPolicy(deny: ["0.0.0.0/0"], denyDefaults: false)
        XCTAssertNotNil(everyIPv4.refusal(host: "1.2.3.4"))
        XCTAssertNotNil(everyIPv4.refusal(host: "255.255.255.255"))
        XCTAssertNil(everyIPv4.refusal(host: "::2"))
        let everyIPv6 = try DownloadPolicy(deny: ["::/0"], denyDefaults: false)
        XCTAssertNotNil(everyIPv6.refusal(host: "2001:db8::1"))
        XCTAssertNil(everyIPv6.refusal(host: "1.2.3.4"))

        let exact = try DownloadPolicy(deny: ["192.0.2.7/32", "2001:db8::7/128", "198.51.100.9"], denyDefaults: false)
        XCTAssertNotNil(exact.refusal(host: "192.0.2.7"))
        XCTAssertNil(exact.refusal(host: "192.0.2.6"))
        XCTAssertNil(exact.refusal(host: "192.0.2.8"))
        XCTAssertNotNil(exact.refusal(host: "2001:db8::7"))
        XCTAssertNil(exact.refusal(host: "2001:db8::6"))
        XCTAssertEqual(exact.refusal(host: "198.51.100.9"), "198.51.100.9 is a denied address")
    }

    func testIPv4MappedIPv6IsMatchedAsIPv4() throws {
        let standard = DownloadPolicy.standard
        let metadata = "169.254.169.254 is a cloud metadata address"
        XCTAssertEqual(standard.refusal(host: "[::ffff:169.254.169.254]"), metadata)
        XCTAssertEqual(standard.refusal(host: "::ffff:a9fe:a9fe"), metadata)
        XCTAssertEqual(
            standard.refusal(host: "meta.example", address: "::ffff:169.254.169.254"),
            "host meta.example resolved to 169.254.169.254, a cloud metadata address")
        // ::/0 is IPv6 only; the mapped address is IPv4.
        XCTAssertNil(try DownloadPolicy(deny: ["::/0"]).refusal(host: "::ffff:1.2.3.4"))
        // A mapped range in an entry is an IPv4 range.
        let mapped = try DownloadPolicy(deny: ["::ffff:10.0.0.0/104"])
        XCTAssertEqual(mapped.refusal(host: "10.200.0.1"), "10.200.0.1 is in the denied range ::ffff:10.0.0.0/104")
        XCTAssertNil(mapped.refusal(host: "11.0.0.1"))
    }

    func testDefaults() throws {
        let standard = DownloadPolicy.standard
        XCTAssertEqual(standard.allow, [])
        XCTAssertEqual(standard.deny, [])
        XCTAssertTrue(standard.denyDefaults)
        XCTAssertFalse(standard.allowLoopback)
        XCTAssertEqual(standard.refusedReach, AddressReach.refusedByDefault)
        XCTAssertEqual(
            Array(DownloadPolicy.defaultDeny.prefix(9)),
            ["127.0.0.0/8", "::1/128", "169.254.0.0/16", "fe80::/10", "fd00:ec2::254/128", "100.100.100.200/32", "0.0.0.0/8", "::/128", "100.64.0.0/10"])
        XCTAssertTrue(Set(DownloadPolicy.defaultDeny).isSuperset(of: ["64:ff9b:1::/48", "2001::/32", "224.0.0.0/4", "ff00::/8", "240.0.0.0/4"]))
        for range in DownloadPolicy.defaultDeny {
            let address = String(range.prefix { $0 != "/" })
            XCTAssertNotNil(standard.refusal(host: address.contains(":") ? "[\(address)]" : address), range)
        }
        XCTAssertNotNil(standard.refusal(host: "169.254.169.254"))
        XCTAssertNotNil(standard.refusal(host: "fe80::1"))
        XCTAssertNotNil(standard.refusal(host: "febf:ffff::1"))
        XCTAssertEqual(standard.refusal(host: "fec0::1"), "fec0::1 is a reserved address")   // site-local, past fe80::/10
        XCTAssertNil(standard.refusal(host: "2606:4700::1111"))
        XCTAssertEqual(standard.refusal(host: "fd00:ec2::254"), "fd00:ec2::254 is a cloud metadata address")
        XCTAssertEqual(standard.refusal(host: "0.0.0.0"), "0.0.0.0 is an unspecified address")
        XCTAssertNotNil(standard.refusal(host: "::"))
        XCTAssertEqual(standard.refusal(host: "127.0.0.1"), "127.0.0.1 is a loopback address")
        XCTAssertEqual(standard.refusal(host: "::1"), "::1 is a loopback address")
        XCTAssertEqual(
            standard.refusal(host: "localhost", address: "127.0.0.1"), "host localhost resolved to 127.0.0.1, a loopback address")
        XCTAssertNil(standard.refusal(host: "localhost"))   // undecided until resolved
        // Private ranges stay allowed: photo stores live there.
        for address in ["10.0.0.1", "172.16.0.1", "172.31.255.254", "192.168.1.1", "[fd12::1]", "[fc00::1]"] {
            XCTAssertNil(standard.refusal(host: address), address)
        }

        let open = try DownloadPolicy(denyDefaults: false)
        XCTAssertEqual(open.refusedReach, [])
        XCTAssertNil(open.refusal(host: "169.254.169.254"))
        XCTAssertNil(open.refusal(host: "127.0.0.1"))
        XCTAssertNotNil(try DownloadPolicy(deny: ["127.0.0.0/8", "::1/128"], allowLoopback: true).refusal(host: "::1"))
        XCTAssertEqual(DownloadLimits().policy.denyDefaults, true)
        XCTAssertEqual(DownloadLimits().policy.allow, [])
    }

    func testAllowLoopbackAllowsLoopbackOnly() throws {
        let policy = try DownloadPolicy(deny: ["*.blocked.test"], allowLoopback: true)
        XCTAssertEqual(policy.refusedReach, AddressReach.refusedByDefault.subtracting([.loopback]))
        XCTAssertNil(policy.refusal(host: "127.0.0.1"))
        XCTAssertNil(policy.refusal(host: "127.255.0.9"))
        XCTAssertNil(policy.refusal(host: "::1"))
        XCTAssertNil(policy.refusal(host: "[::ffff:127.0.0.1]"))
        XCTAssertNil(policy.refusal(host: "localhost", address: "::1"))
        for address in ["169.254.169.254", "169.254.0.1", "0.0.0.0", "100.64.0.1", "100.100.100.200", "[fe80::1]", "[::]", "[fd00:ec2::254]"] {
            XCTAssertNotNil(policy.refusal(host: address), address)
        }
        // The lists are kept.
        XCTAssertNotNil(policy.refusal(host: "a.blocked.test"))
        let again = DownloadPolicy.standard.allowingLoopback()
        XCTAssertTrue(again.allowLoopback)
        XCTAssertNil(again.refusal(host: "127.0.0.1"))
        XCTAssertTrue(DownloadPolicy.loopbackAllowed.allowLoopback)
        XCTAssertEqual(try DownloadPolicy(deny: ["10.0.0.0/8"]).allowingLoopback().deny, ["10.0.0.0/8"])
    }

    func testEmbeddedFormsAreJudgedByTheirIPv4Address() {
        let standard = DownloadPolicy.standard
        XCTAssertEqual(standard.refusal(host: "[::ffff:127.0.0.1]"), "127.0.0.1 is a loopback address")
        XCTAssertEqual(
            standard.refusal(host: "[64:ff9b::127.0.0.1]"), "64:ff9b::7f00:1, which embeds 127.0.0.1, a loopback address")
        XCTAssertEqual(standard.refusal(host: "[::127.0.0.1]"), "::127.0.0.1, which embeds 127.0.0.1, a loopback address")
        XCTAssertEqual(standard.refusal(host: "[2002:7f00:1::]"), "2002:7f00:1::, which embeds 127.0.0.1, a loopback address")
        XCTAssertEqual(
            standard.refusal(host: "[::ffff:0:169.254.169.254]"),
            "::ffff:0:a9fe:a9fe, which embeds 169.254.169.254, a cloud metadata address")
        XCTAssertEqual(
            standard.refusal(host: "cdn.example", address: "64:ff9b::a9fe:a9fe"),
            "host cdn.example resolved to 64:ff9b::a9fe:a9fe, which embeds 169.254.169.254, a cloud metadata address")
        XCTAssertNotNil(standard.refusal(host: "[2002:6440:1::]"))   // 100.64.0.1
        // Embedded public addresses are allowed, and private ones where the address leads
        // straight to them; NAT64 and 6to4 must not carry them.
        XCTAssertNil(standard.refusal(host: "[64:ff9b::8.8.8.8]"))
        XCTAssertNil(standard.refusal(host: "[2002:0808:0808::1]"))
        XCTAssertNil(standard.refusal(host: "[::ffff:192.168.1.1]"))
        XCTAssertEqual(standard.refusal(host: "[2002:a00:1::]"), "2002:a00:1::, which embeds 10.0.0.1, a tunnelled address")
        XCTAssertEqual(standard.refusal(host: "[64:ff9b:1::a00:1]"), "64:ff9b:1::a00:1 is a tunnelled address")
        XCTAssertEqual(standard.refusal(host: "cdn.example", address: "2001:db8::1"), "host cdn.example resolved to 2001:db8::1, a documentation address")
    }

    func testHostNamePatterns() throws {
        let policy = try DownloadPolicy(deny: ["*.blocked.test", "Exact.Example"])
        XCTAssertEqual(policy.refusal(host: "a.blocked.test"), "host a.blocked.test matches the denied name *.blocked.test")
        XCTAssertNotNil(policy.refusal(host: "A.B.Blocked.TEST."))
        XCTAssertNil(policy.refusal(host: "blocked.test"))       // subdomains only
        XCTAssertNil(policy.refusal(host: "notblocked.test"))
        XCTAssertEqual(policy.refusal(host: "EXACT.example"), "host exact.example matches the denied name Exact.Example")
        XCTAssertNil(policy.refusal(host: "sub.exact.example"))
        // A denied name is refused whatever it resolves to.
        XCTAssertNotNil(policy.refusal(host: "x.blocked.test", address: "203.0.113.1"))
    }

    func testAllowList() throws {
        let names = try DownloadPolicy(allow: ["photos.example", "*.cdn.example"])
        XCTAssertNil(names.refusal(host: "photos.example"))
        XCTAssertNil(names.refusal(host: "eu.cdn.example", address: "93.184.215.14"))
        XCTAssertEqual(names.refusal(host: "evil.example"), "host evil.example is not in the allow list")
        XCTAssertEqual(names.refusal(host: "93.184.215.15"), "93.184.215.15 is not in the allow list")
        // Reach refusals win over the allow list.
        XCTAssertEqual(try DownloadPolicy(allow: ["127.0.0.1"]).refusal(host: "127.0.0.1"), "127.0.0.1 is a loopback address")

        let mixed = try DownloadPolicy(allow: ["photos.example", "10.0.0.0/8"])
        XCTAssertNil(mixed.refusal(host: "other.example"))   // undecided until resolved
        XCTAssertNil(mixed.refusal(host: "other.example", address: "10.1.1.1"))
        XCTAssertEqual(
            mixed.refusal(host: "other.example", address: "192.168.1.1"),
            "host other.example (192.168.1.1) is not in the allow list")

        // The deny list wins over the allow list.
        let both = try DownloadPolicy(allow: ["*.example", "169.254.0.0/16"])
        XCTAssertNotNil(both.refusal(host: "meta.example", address: "169.254.169.254"))
        XCTAssertNotNil(both.refusal(host: "169.254.169.254"))
    }

    func testMalformedEntriesThrowNamingTheEntry() {
        let bad: [(String, String)] = [
            ("10.0.0.0/33", "the prefix length must be 0 to 32"),
            ("::/129", "the prefix length must be 0 to 128"),
            ("10.0.0.0/", "the prefix length must be 0 to 32"),
            ("10.0.0.0/8x", "the prefix length must be 0 to 32"),
            ("10.0.0.256", "not a valid IP address"),
            ("1.2.3", "not a valid IP address"),
            ("abc/8", "not a valid IP address before the '/'"),
            ("::ffff:10.0.0.0/64", "an IPv4-mapped range needs a prefix length of at least 96"),
            ("fe80::1%eth0", "not a host name, IP address or CIDR range"),
            ("http://photos.example", "a URL; give its host name only"),
            ("photos.example:8080", "not a host name, IP address or CIDR range"),
            ("a..example", "not a host name, IP address or CIDR range"),
            ("*", "a wildcard is only allowed as a leading '*.'"),
            ("a.*.example", "a wildcard is only allowed as a leading '*.'"),
            ("", "empty entry"),
        ]
        for (entry, reason) in bad {
            for (allow, deny) in [([entry], []), ([], [entry])] {
                XCTAssertThrowsError(try DownloadPolicy(allow: allow, deny: deny), entry) { error in
                    let policyError = error as? DownloadPolicyError
                    XCTAssertEqual(policyError?.entry, entry)
                    XCTAssertEqual(policyError?.reason, reason, entry)
                    XCTAssertEqual(policyError?.description, "invalid download policy entry '\(entry)': \(reason)")
                }
            }
        }
        XCTAssertNoThrow(try DownloadPolicy(allow: [" photos.example "], deny: ["\t10.0.0.0/8\n"]))
    }

    func testUnparsableAddressIsRefused() {
        XCTAssertEqual(DownloadPolicy.standard.refusal(host: "a.example", address: "nope"), "'nope' is not an IP address")
    }

    func testPolicyErrorsArePermanent() {
        let error = expectError(fetch("http://169.254.169.254/latest/meta-data/"))
        XCTAssertEqual(error?.kind, .policy)
        XCTAssertEqual(error?.isTransient, false)
    }
}
