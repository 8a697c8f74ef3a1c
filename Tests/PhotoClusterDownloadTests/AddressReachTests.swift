import PhotoClusterDownload
import XCTest

/// The address classifier the download policy refuses by: each range, its edges, and the IPv6
/// forms that embed an IPv4 address.
final class AddressReachTests: XCTestCase {
    private func assertReach(_ expected: AddressReach, _ addresses: [String], file: StaticString = #filePath, line: UInt = #line) {
        for address in addresses {
            XCTAssertEqual(AddressReach(address: address), expected, address, file: file, line: line)
        }
    }

    func testIPv4Ranges() {
        assertReach(.loopback, ["127.0.0.1", "127.0.0.0", "127.255.255.255", "127.1.2.3"])
        assertReach(.unspecified, ["0.0.0.0", "0.1.2.3", "0.255.255.255"])
        assertReach(.linkLocal, ["169.254.0.1", "169.254.255.255", "169.254.169.253"])
        assertReach(.cloudMetadata, ["169.254.169.254", "100.100.100.200"])
        assertReach(.carrierGradeNAT, ["100.64.0.0", "100.64.0.1", "100.127.255.255", "100.100.100.201"])
        assertReach(.privateNetwork, ["10.0.0.0", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.0.1", "192.168.255.255"])
        assertReach(.internet, [
            "1.1.1.1", "8.8.8.8", "126.255.255.255", "128.0.0.1", "169.253.255.255", "169.255.0.0", "100.63.255.255",
            "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0", "11.0.0.0", "9.255.255.255",
        ])
    }

    func testIPv6Ranges() {
        assertReach(.loopback, ["::1", "[::1]", "0:0:0:0:0:0:0:1"])
        assertReach(.unspecified, ["::", "[::]"])
        assertReach(.linkLocal, ["fe80::1", "febf:ffff::1", "[fe80::abcd]"])
        assertReach(.cloudMetadata, ["fd00:ec2::254"])
        assertReach(.privateNetwork, ["fc00::1", "fd12:3456::1", "fdff:ffff::1", "fd00:ec2::253"])
        assertReach(.internet, ["2606:4700::1111", "2003::1", "2000::1", "3ffe::1", "3fff:1000::1", "2001:200::1", "2002:0808:0808::1"])
        assertReach(.reserved, ["fec0::1", "fe7f::1", "fbff::1", "64:ff9c::7f00:1", "4000::1", "1fff::1", "100::1", "5f00::1", "64:ff9b:2::1"])
    }

    /// Each range of the IANA IPv4 special-purpose registry (and multicast), at its edges.
    func testIPv4SpecialPurposeRanges() {
        assertReach(.documentation, ["192.0.2.0", "192.0.2.255", "198.51.100.1", "203.0.113.255"])
        assertReach(.benchmarking, ["198.18.0.0", "198.19.255.255"])
        assertReach(.multicast, ["224.0.0.1", "239.255.255.255"])
        assertReach(.reserved, ["240.0.0.1", "255.255.255.255", "192.0.0.0", "192.0.0.8", "192.0.0.170", "192.0.0.255", "192.88.99.1"])
        // Globally reachable members of the registry, and the neighbours of each range.
        assertReach(.internet, [
            "192.0.0.9", "192.0.0.10", "192.31.196.1", "192.52.193.1", "192.175.48.1", "192.0.1.255", "192.0.3.0",
            "198.17.255.255", "198.20.0.0", "198.51.99.255", "203.0.112.255", "203.0.114.0", "223.255.255.255", "192.88.98.255",
        ])
    }

    /// Each range of the IANA IPv6 special-purpose registry (and multicast), at its edges.
    func testIPv6SpecialPurposeRanges() {
        assertReach(.multicast, ["ff02::1", "ff05::2", "ffff::1"])
        assertReach(.documentation, ["2001:db8::1", "2001:db8:ffff::1", "3fff::1", "3fff:0fff::1"])
        assertReach(.benchmarking, ["2001:2::1", "2001:2:0:ffff::1"])
        assertReach(.tunnelled, ["64:ff9b:1::1", "64:ff9b:1:ffff::7f00:1", "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2"])
        assertReach(.reserved, ["2001:10::1", "2001:1::4", "2001:5::1", "2001:1ff::1", "100::", "100::ffff:ffff:ffff:ffff", "100:0:0:1::1"])
        assertReach(.internet, ["2001:1::1", "2001:1::2", "2001:1::3", "2001:3::1", "2001:4:112::1", "2001:20::1", "2001:30::1", "2001:db9::1", "2620:4f:8000::1"])
    }

    /// NAT64 and 6to4 must never carry a private address; where such an address leads is the
    /// relay's business, so it is refused.
    func testTranslatedPrivateAddressesAreTunnelled() {
        assertReach(.tunnelled, ["64:ff9b::10.0.0.1", "64:ff9b::192.168.1.1", "2002:ac10:1::", "2002:0a00:0001::1"])
        assertReach(.documentation, ["2002:c000:0201::1", "64:ff9b::198.51.100.1"])
        assertReach(.multicast, ["2002:e000:0001::", "64:ff9b::239.0.0.1"])
        XCTAssertEqual(AddressReach.classify("2002:a00:1::")?.embeddedIPv4, "10.0.0.1")
    }

    func testEmbeddedIPv4Forms() {
        // IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64 and 6to4 spellings of 127.0.0.1.
        for address in ["::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:0:127.0.0.1", "::127.0.0.1", "::7f00:1", "64:ff9b::127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::", "2002:7f00:0001:1234::5"] {
            XCTAssertEqual(AddressReach(address: address), .loopback, address)
        }
        XCTAssertEqual(AddressReach.classify("64:ff9b::7f00:1")?.embeddedIPv4, "127.0.0.1")
        XCTAssertEqual(AddressReach.classify("2002:a9fe:a9fe::")?.embeddedIPv4, "169.254.169.254")
        XCTAssertEqual(AddressReach.classify("::ffff:0:a00:1")?.embeddedIPv4, "10.0.0.1")
        XCTAssertEqual(AddressReach.classify("::127.0.0.1")?.embeddedIPv4, "127.0.0.1")
        // A mapped address is an IPv4 address: nothing is embedded in it.
        XCTAssertNil(AddressReach.classify("::ffff:127.0.0.1")?.embeddedIPv4)
        XCTAssertNil(AddressReach.classify("::1")?.embeddedIPv4)
        XCTAssertNil(AddressReach.classify("127.0.0.1")?.embeddedIPv4)

        assertReach(.cloudMetadata, ["::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1", "::169.254.169.254"])
        assertReach(.linkLocal, ["64:ff9b::169.254.1.1", "2002:a9fe:0101::"])
        assertReach(.unspecified, ["64:ff9b::", "2002::", "::0.0.0.2", "::ffff:0.0.0.0"])
        assertReach(.carrierGradeNAT, ["64:ff9b::100.64.0.1", "2002:6440:1::", "::ffff:100.64.0.1"])
        assertReach(.privateNetwork, ["::ffff:10.0.0.1", "::ffff:0:192.168.1.1"])
        assertReach(.internet, ["::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::"])
    }

    func testNotAnAddress() {
        for text in ["", "localhost", "2130706433", "127.1", "0x7f.0.0.1", "fe80::1%eth0", "[::1", "1.2.3.4.5"] {
            XCTAssertNil(AddressReach(address: text), text)
        }
    }

    func testRefusedByDefault() {
        XCTAssertEqual(AddressReach.refusedByDefault, [
            .loopback, .linkLocal, .cloudMetadata, .unspecified, .carrierGradeNAT, .multicast, .documentation, .benchmarking, .reserved, .tunnelled,
        ])
        XCTAssertFalse(AddressReach.refusedByDefault.contains(.privateNetwork))
        XCTAssertFalse(AddressReach.refusedByDefault.contains(.internet))
        XCTAssertEqual(AddressReach.loopback.description, "loopback")
        XCTAssertEqual(AddressReach.carrierGradeNAT.description, "carrier-grade NAT")
        XCTAssertEqual(AddressReach.cloudMetadata.description, "cloud metadata")
        XCTAssertEqual(AddressReach.tunnelled.description, "tunnelled")
    }
}
