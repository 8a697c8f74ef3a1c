import Foundation
import XCTest

@testable import PhotoClusterCore

final class ManifestParserTests: XCTestCase {
    private let parser = ManifestParser()

    private func parse(_ text: String, file: String = "m") throws -> Manifest {
        try parser.parse(Data(text.utf8), file: file)
    }

    private func assertRefused(_ text: String, entry: String?, reasonContains fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(text, file: "bad.manifest"), file: file, line: line) { error in
            guard let error = error as? ManifestError else { return XCTFail("not a ManifestError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.file, "bad.manifest", file: file, line: line)
            XCTAssertEqual(error.entry, entry, "\(error)", file: file, line: line)
            XCTAssertTrue(error.reason.contains(fragment), "\(error.reason) lacks \(fragment)", file: file, line: line)
            XCTAssertTrue(error.description.hasPrefix("bad.manifest"), file: file, line: line)
        }
    }

    // MARK: - Property lists

    func testPropertyListDictionaryIsOrderedByName() throws {
        let manifest = try parse("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>Zebra</key><string>http://h/z.jpg</string>
              <key>Apple</key><string>http://h/a.jpg</string>
            </dict></plist>
            """)
        XCTAssertEqual(manifest.format, .propertyList)
        XCTAssertEqual(manifest.entries, [ManifestEntry(name: "Apple", url: "http://h/a.jpg"), ManifestEntry(name: "Zebra", url: "http://h/z.jpg")])
    }

    func testPropertyListArrayKeepsOrderAndFilters() throws {
        let manifest = try parse("""
            <plist version="1.0"><array>
              <dict><key>name</key><string>b</string><key>url</key><string>https://h/b.png</string></dict>
              <dict><key>name</key><string>a</string><key>url</key><string>https://h/a.png</string>
                    <key>filters</key><array><string>sepia:intensity=0.5</string></array></dict>
            </array></plist>
            """)
        XCTAssertEqual(manifest.entries.map(\.name), ["b", "a"])
        XCTAssertEqual(manifest.entries[1].filters, ["sepia:intensity=0.5"])
        XCTAssertNil(manifest.entries[0].filters)
    }

    func testBinaryPropertyList() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: ["cat": "http://h/cat.jpg"], format: .binary, options: 0)
        let manifest = try parser.parse(data, file: "b.plist")
        XCTAssertEqual(manifest.format, .propertyList)
        XCTAssertEqual(manifest.entries, [ManifestEntry(name: "cat", url: "http://h/cat.jpg")])
    }

    func testBundledSampleManifest() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let manifest = try parser.parse(contentsOf: root.appendingPathComponent("samples/photos.plist"))
        XCTAssertGreaterThanOrEqual(manifest.entries.count, 14)
        let photos = root.appendingPathComponent("samples/photos")
        let missing = manifest.entries.filter { !FileManager.default.fileExists(atPath: photos.appendingPathComponent(URL(string: $0.url)!.lastPathComponent).path) }
        XCTAssertEqual(missing.count, 2, "exactly two misspelled photos: \(missing.map(\.name))")
        XCTAssertGreaterThanOrEqual(manifest.entries.count - missing.count, 12)
    }

    // MARK: - JSON

    func testJSONObjectAndArray() throws {
        let object = try parse(#"{"b": "http://h/b.jpg", "a": "http://h/a.jpg"}"#)
        XCTAssertEqual(object.format, .json)
        XCTAssertEqual(object.entries.map(\.name), ["a", "b"])
        let array = try parse(#"[{"name": "x", "url": "http://h/x.jpg", "filters": ["sepia"]}, {"name": "y", "url": "http://h/y.jpg"}]"#)
        XCTAssertEqual(array.entries.map(\.name), ["x", "y"])
        XCTAssertEqual(array.entries[0].filters, ["sepia"])
    }

    func testFormatIsDetectedFromContentNotExtension() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID()).txt")
        try Data(#"  {"a": "http://h/a.jpg"}"#.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        XCTAssertEqual(try parser.parse(contentsOf: url).format, .json)
    }

    // MARK: - Plain text

    func testPlainTextSkipsBlanksAndComments() throws {
        let manifest = try parse("""
            # holiday photos
            http://h/photos/beach.jpg

              https://h/p/sunset%20sky.png  
            # the end
            """)
        XCTAssertEqual(manifest.format, .text)
        XCTAssertEqual(manifest.entries, [
            ManifestEntry(name: "beach.jpg", url: "http://h/photos/beach.jpg"),
            ManifestEntry(name: "sunset sky.png", url: "https://h/p/sunset%20sky.png"),
        ])
    }

    // MARK: - Errors name the file, the entry and the reason

    func testPlainTextErrorsNameTheLine() {
        assertRefused("http://h/a.jpg\nnot a url\n", entry: "line 2", reasonContains: "not a URL")
        assertRefused("http://h/a.jpg\n\nhttp://other/a.jpg\n", entry: "line 3", reasonContains: "already used by line 1")
        assertRefused("http://h/\n", entry: "line 1", reasonContains: "file name")
    }

    func testJSONErrors() {
        assertRefused("{\n \"a\": \"http://h/a.jpg\",\n \"b\": nope\n}", entry: nil, reasonContains: "line 3")
        assertRefused(#"{"a": 42}"#, entry: "key \"a\"", reasonContains: "URL string")
        assertRefused(#"[{"url": "http://h/a.jpg"}]"#, entry: "entry 1", reasonContains: "\"name\"")
        assertRefused(#"[{"name": "a"}]"#, entry: "entry 1 (\"a\")", reasonContains: "\"url\"")
        assertRefused(#"[{"name": "a", "url": "http://h/a.jpg"}, {"name": "a", "url": "http://h/b.jpg"}]"#, entry: "entry 2 (\"a\")", reasonContains: "unique")
        assertRefused(#"[{"name": "a", "url": "http://h/a.jpg", "filters": "sepia"}]"#, entry: "entry 1 (\"a\")", reasonContains: "array of strings")
        assertRefused(#"{"a": "no scheme here"}"#, entry: "key \"a\"", reasonContains: "not a valid URL")
        assertRefused(#"{"a": ""}"#, entry: "key \"a\"", reasonContains: "empty")
        assertRefused(#"{"": "http://h/a.jpg"}"#, entry: "key \"\"", reasonContains: "name is empty")
        assertRefused(#""just a string""#, entry: "line 1", reasonContains: "not a URL")
        assertRefused("{}", entry: nil, reasonContains: "no photos")
        assertRefused("42", entry: "line 1", reasonContains: "not a URL")
    }

    func testPropertyListErrors() {
        assertRefused("<plist><dict><key>a</key><string>x</strin></dict></plist>", entry: nil, reasonContains: "not a valid property list")
        assertRefused("<plist><dict><key>a</key><integer>1</integer></dict></plist>", entry: "key \"a\"", reasonContains: "URL string")
        assertRefused("<plist><string>x</string></plist>", entry: nil, reasonContains: "top level")
    }

    func testABinaryPropertyListHoldingASetIsRefusedNotACrash() {
        // Found by the manifest fuzz target: Foundation's property-list reader crashed on it.
        let data = Data(base64Encoded: "YnBsaXN0MDDBARAFCAoAAAAAAAABAQAAAAAAAAACAAAAAAAAAAAAAAAAAAAADA==")!
        XCTAssertThrowsError(try parser.parse(data, file: "set.plist")) { error in
            XCTAssertTrue("\(error)".hasPrefix("set.plist"), "\(error)")
        }
    }

    func testASelfReferencingBinaryPropertyListIsRefusedNotALoop() throws {
        // Found by the manifest fuzz target: an object that contains itself recursed forever.
        let data = Data(base64Encoded: "YnBsaXN0MDDSAQIBAAAAAAAAFiB3YWJwbGlzdDAwJGh0dHBzOi8vZXhhbTpqcGcIDRgcQwAAAG5nIEAgDQouMTo4NzYQ/yX//3A6Ly8xMjcuMC4wLlVJbnQ+NS9jYXQuanBnCAACAAAAAKkAAAABAQAAAAAAAAAFAAAAAAAAAAAAAAAAAAAAYw==")!
        let started = Date()
        XCTAssertThrowsError(try parser.parse(data, file: "loop.plist"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }

    func testLimits() {
        let small = ManifestParser(limits: ManifestLimits(maxBytes: 1000, maxEntries: 2, maxNameLength: 8))
        XCTAssertThrowsError(try small.parse(Data("http://h/a.jpg\nhttp://h/b.jpg\nhttp://h/c.jpg\n".utf8), file: "f")) { error in
            XCTAssertTrue("\(error)".contains("over the limit of 2"), "\(error)")
        }
        XCTAssertThrowsError(try small.parse(Data(#"{"a-very-long-name": "http://h/a.jpg"}"#.utf8), file: "f")) { error in
            XCTAssertTrue("\(error)".contains("over the limit of 8"), "\(error)")
        }
        XCTAssertThrowsError(try small.parse(Data(repeating: 0x20, count: 2000), file: "f")) { error in
            XCTAssertTrue("\(error)".contains("over the limit of 1000"), "\(error)")
        }
    }

    func testMissingFileIsAManifestError() {
        XCTAssertThrowsError(try parser.parse(contentsOf: URL(fileURLWithPath: "/nonexistent/photos.plist"))) { error in
            XCTAssertEqual((error as? ManifestError)?.file, "/nonexistent/photos.plist")
        }
    }
}
