import Foundation
import XCTest

@testable import PhotoClusterCore

/// Names equal after Unicode normalisation (NFC "é" = U+00E9, NFD "é" = U+0065 U+0301) are
/// duplicates in every manifest form: none is merged away in silence.
final class ManifestNormalisationTests: XCTestCase {
    private let nfc = "caf\u{E9}.jpg"
    private let nfd = "cafe\u{301}.jpg"

    private func refusal(_ text: String) -> ManifestError? { refusal(Data(text.utf8)) }

    private func refusal(_ data: Data) -> ManifestError? {
        do {
            _ = try ManifestParser().parse(data, file: "twins.manifest")
            return nil
        } catch {
            return error as? ManifestError
        }
    }

    private func assertTwinsRefused(_ text: String, form: String, file: StaticString = #filePath, line: UInt = #line) {
        assertTwinsRefused(Data(text.utf8), form: form, file: file, line: line)
    }

    private func assertTwinsRefused(_ data: Data, form: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let error = refusal(data) else { return XCTFail("\(form): the twins were taken", file: file, line: line) }
        XCTAssertTrue(error.reason.contains("already used by"), "\(form): \(error)", file: file, line: line)
        XCTAssertTrue(error.reason.contains("U+00E9") && error.reason.contains("U+0065 U+0301"), "\(form): \(error)", file: file, line: line)
        XCTAssertEqual(error.file, "twins.manifest", file: file, line: line)
    }

    func testTheSpellingsDifferInBytes() {
        XCTAssertNotEqual(Array(nfc.utf8), Array(nfd.utf8))
        XCTAssertEqual(nfc, nfd, "Swift compares by canonical equivalence")
    }

    func testJSONDictionary() {
        assertTwinsRefused(#"{"\#(nfc)": "http://h/1.jpg", "\#(nfd)": "http://h/2.jpg"}"#, form: "JSON dictionary")
        // Escaped spellings are read as the file means them.
        assertTwinsRefused(#"{"caf\u00e9.jpg": "http://h/1.jpg", "other": {"x": [1, "}"]}, "cafe\u0301.jpg": "http://h/2.jpg"}"#, form: "JSON dictionary, escaped")
        // A key written twice is a duplicate too.
        let twice = refusal(#"{"a.jpg": "http://h/1.jpg", "a.jpg": "http://h/2.jpg"}"#)
        XCTAssertEqual(twice?.entry, "key \"a.jpg\"")
        XCTAssertTrue(twice?.reason.contains("already used by key \"a.jpg\"; names must be unique") == true, "\(String(describing: twice))")
    }

    func testJSONArray() {
        assertTwinsRefused(#"[{"name": "\#(nfc)", "url": "http://h/1.jpg"}, {"name": "\#(nfd)", "url": "http://h/2.jpg"}]"#, form: "JSON array")
    }

    func testPropertyListArray() {
        assertTwinsRefused("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array>
              <dict><key>name</key><string>\(nfc)</string><key>url</key><string>http://h/1.jpg</string></dict>
              <dict><key>name</key><string>\(nfd)</string><key>url</key><string>http://h/2.jpg</string></dict>
            </array></plist>
            """, form: "property list array")
    }

    func testPropertyListDictionary() {
        assertTwinsRefused("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>\(nfc)</key><string>http://h/1.jpg</string>
              <key>\(nfd)</key><string>http://h/2.jpg</string>
            </dict></plist>
            """, form: "property list dictionary")
    }

    /// Written byte by byte: no encoder keeps twins in a dictionary.
    func testBinaryPropertyListDictionary() {
        assertTwinsRefused(Self.binaryPropertyList([(nfc, "http://h/1.jpg"), (nfd, "http://h/2.jpg")]), form: "binary property list dictionary")
        let twice = refusal(Self.binaryPropertyList([("a.jpg", "http://h/1.jpg"), ("a.jpg", "http://h/2.jpg")]))
        XCTAssertTrue(twice?.reason.contains("already used by key \"a.jpg\"") == true, "\(String(describing: twice))")
        XCTAssertNil(refusal(Self.binaryPropertyList([(nfc, "http://h/1.jpg"), ("cafe.jpg", "http://h/2.jpg")])), "distinct names pass")
    }

    /// A bplist00 of one dictionary of short strings: object 0 the dictionary, then its keys,
    /// then its values; one-byte offsets and references.
    private static func binaryPropertyList(_ pairs: [(key: String, value: String)]) -> Data {
        func string(_ text: String) -> [UInt8] {
            if text.unicodeScalars.allSatisfy(\.isASCII) { return [0x50 | UInt8(text.utf8.count)] + Array(text.utf8) }
            let units: [UInt8] = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            return [0x60 | UInt8(text.utf16.count)] + units
        }
        let count = pairs.count
        let keyReferences: [UInt8] = (0..<count).map { UInt8(1 + $0) }
        let valueReferences: [UInt8] = (0..<count).map { UInt8(1 + count + $0) }
        let dictionary: [UInt8] = [0xD0 | UInt8(count)] + keyReferences + valueReferences
        let objects: [[UInt8]] = [dictionary] + pairs.map { string($0.key) } + pairs.map { string($0.value) }
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        func bigEndian(_ value: Int) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * (7 - $0))) } }
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += bigEndian(objects.count)
        bytes += bigEndian(0)
        bytes += bigEndian(table)
        return Data(bytes)
    }

    func testPlainText() {
        assertTwinsRefused("http://h/a/\(nfc)\nhttp://h/b/\(nfd)\n", form: "plain text")
    }

    func testDistinctNamesStillPass() throws {
        let manifest = try ManifestParser().parse(Data(#"{"\#(nfc)": "http://h/1.jpg", "cafe.jpg": "http://h/2.jpg"}"#.utf8), file: "m")
        XCTAssertEqual(manifest.entries.count, 2)
    }
}
