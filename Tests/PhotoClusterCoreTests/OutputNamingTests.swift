import XCTest

@testable import PhotoClusterCore

final class OutputNamingTests: XCTestCase {
    func testUnsafeCharactersAndTraversalAreNeutralised() {
        XCTAssertEqual(OutputNaming.sanitizedStem("../../etc/passwd"), "_.._etc_passwd")
        XCTAssertEqual(OutputNaming.sanitizedStem("/abs/path.jpg"), "_abs_path")
        XCTAssertEqual(OutputNaming.sanitizedStem(".hidden"), "hidden")
        XCTAssertEqual(OutputNaming.sanitizedStem("..."), "photo")
        XCTAssertEqual(OutputNaming.sanitizedStem("Chelsea the cat"), "Chelsea_the_cat")
        XCTAssertEqual(OutputNaming.sanitizedStem("naïve\u{0}name\n.png"), "na_ve_name_")
        XCTAssertEqual(OutputNaming.sanitizedStem(String(repeating: "x", count: 500)).count, OutputNaming.maxStemLength)
    }

    func testEveryStemIsASingleSafePathComponent() {
        let hostile = ["..", ".", "a/b", "a\\b", "\u{202E}gnp.exe", "con", "", " ", "日本語", "%2e%2e%2f"]
        for stem in OutputNaming.stems(for: hostile) {
            XCTAssertFalse(stem.isEmpty)
            XCTAssertFalse(stem.contains("/"))
            XCTAssertFalse(stem.hasPrefix("."))
            XCTAssertTrue(stem.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 }, stem)
            let resolved = URL(fileURLWithPath: "/out").appendingPathComponent(stem + ".jpg").standardizedFileURL.path
            XCTAssertTrue(resolved.hasPrefix("/out/"), resolved)
        }
    }

    func testTwoNamesNeverMapToOneFile() {
        let names = ["cat", "cat.jpg", "Cat.png", "c/a/t", "c_a_t", "c?a?t", "dog"]
        let stems = OutputNaming.stems(for: names)
        XCTAssertEqual(stems, ["cat", "cat-2", "Cat-3", "c_a_t", "c_a_t-2", "c_a_t-3", "dog"])
        XCTAssertEqual(Set(stems.map { $0.lowercased() }).count, names.count)
    }

    func testDeduplicationKeepsLongStemsWithinTheLimit() {
        let long = String(repeating: "y", count: 300)
        let stems = OutputNaming.stems(for: [long, long + "z"])
        XCTAssertEqual(stems[0].count, OutputNaming.maxStemLength)
        XCTAssertEqual(stems[1].count, OutputNaming.maxStemLength)
        XCTAssertTrue(stems[1].hasSuffix("-2"))
    }

    /// The shortcut for plain ASCII names gives what the rule gives, character by character.
    func testTheShortcutForPlainNamesFollowsTheRule() {
        let pieces = ["a", "Z", "7", "-", "_", ".", ".", " ", "/", "é", "jpg", "JPEG", "png", "Webp", "jpe", "txt", "tar.gz"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let name = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            XCTAssertEqual(OutputNaming.sanitizedStem(name), OutputNaming.sanitizedStemByRule(name), name)
        }
        for name in [String(repeating: "x", count: 120), String(repeating: "x", count: 121), "x.JPG", "x.", ".x", "x.jpeg2"] {
            XCTAssertEqual(OutputNaming.sanitizedStem(name), OutputNaming.sanitizedStemByRule(name), name)
        }
    }
}
