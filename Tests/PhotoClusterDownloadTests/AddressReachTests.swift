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
        assertReach(.internet, ["2001:db8::1", "2606:4700::1111", "fec0::1", "fe7f::1", "fbff::1", "64:ff9c::7f00:1", "2003::1"])
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
        assertReach(.privateNetwork, ["::ffff:10.0.0.1", "64:ff9b::192.168.1.1", "2002:ac10:1::"])
        assertReach(.internet, ["::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::"])
    }

    func testNotAnAddress() {
        for text in ["", "localhost", "2130706433", "127.1", "0x7f.0.0.1", "fe80::1%eth0", "[::1", "1.2.3.4.5"] {
            XCTAssertNil(AddressReach(address: text), text)
        }
    }

    func testRefusedByDefault() {
        XCTAssertEqual(AddressReach.refusedByDefault, [.loopback, .linkLocal, .cloudMetadata, .unspecified, .carrierGradeNAT])
        XCTAssertFalse(AddressReach.refusedByDefault.contains(.privateNetwork))
        XCTAssertFalse(AddressReach.refusedByDefault.contains(.internet))
        XCTAssertEqual(AddressReach.loopback.description, "loopback")
        XCTAssertEqual(AddressReach.carrierGradeNAT.description, "carrier-grade NAT")
        XCTAssertEqual(AddressReach.cloudMetadata.description, "cloud metadata")
    }
}
