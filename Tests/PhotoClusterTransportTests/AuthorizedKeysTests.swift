import Foundation
import PhotoClusterTransport
import XCTest

final class AuthorizedKeysTests: XCTestCase {
    func testFileWithCommentsBlankLinesAndLabels() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let keys = try (0..<4).map { _ in try CurveKeyPair.generate().publicKey }
        let file = try writeFile("""
            # workers allowed in
            \(keys[0])
               \(keys[1])   # render-box

            public-key = "\(keys[2])"  # laptop
            """, named: "workers.txt", in: directory, mode: 0o644)

        let authorized = try AuthorizedKeys(contentsOf: file)
        XCTAssertEqual(authorized.keys, Set(keys[0..<3]))
        XCTAssertFalse(authorized.contains(keys[3]))
        XCTAssertEqual(authorized.label(for: keys[0]), "workers.txt:2")
        XCTAssertEqual(authorized.label(for: keys[1]), "render-box")
        XCTAssertEqual(authorized.label(for: keys[2]), "laptop")
        XCTAssertNil(authorized.label(for: keys[3]))
    }

    func testDirectoryMeansEveryPubFileInside() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let alpha = try CurveKeyPair.generate()
        let beta = try CurveKeyPair.generate()
        try alpha.write(to: directory, name: "alpha")  // alpha.key lies beside: never read
        try beta.write(to: directory, name: "beta")
        try writeFile("not a key at all\n", named: "notes.txt", in: directory)
        let extra = try CurveKeyPair.generate().publicKey
        let list = try writeFile("\(extra) # extra\n", named: "extra.list", in: try makeTemporaryDirectory(for: self))

        let authorized = try AuthorizedKeys(contentsOf: [directory, list])
        XCTAssertEqual(authorized.keys, [alpha.publicKey, beta.publicKey, extra])
        XCTAssertEqual(authorized.label(for: alpha.publicKey), "alpha")
        XCTAssertEqual(authorized.label(for: beta.publicKey), "beta")
        XCTAssertEqual(authorized.label(for: extra), "extra")
        XCTAssertFalse(authorized.contains(alpha.secretKey))
    }

    func testMalformedLineNamesFileAndLine() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let good = try CurveKeyPair.generate().publicKey
        let truncated = try writeFile("# list\n\(good)\n\(good.dropLast())\n", named: "keys.txt", in: directory)
        let error = curveKeyError { _ = try AuthorizedKeys(contentsOf: truncated) }
        XCTAssertEqual(error?.file, truncated)
        XCTAssertEqual(error?.line, 3)
        XCTAssertEqual(error?.problem, .wrongLength(39))
        XCTAssertEqual(error?.description, "\(truncated.path):3: key is 39 characters, expected 40 (Z85)")

        let prose = try writeFile("\n\nhello world\n", named: "prose.pub", in: directory)
        let proseError = curveKeyError { _ = try AuthorizedKeys(contentsOf: prose) }
        XCTAssertEqual(proseError?.line, 3)
        XCTAssertEqual(proseError?.problem,
                       .malformedLine("expected `name = \"value\"` or a 40-character key, optionally followed by `# comment`"))

        let missing = curveKeyError { _ = try AuthorizedKeys(contentsOf: directory.appendingPathComponent("none.pub")) }
        XCTAssertEqual(missing?.problem, .missingFile)
    }

    func testSecretKeyFileIsRefused() throws {
        let files = try CurveKeyPair.generate().write(to: try makeTemporaryDirectory(for: self), name: "oops")
        let error = curveKeyError { _ = try AuthorizedKeys(contentsOf: files.secretFile) }
        XCTAssertEqual(error?.problem, .secretKeyInPublicFile)
        XCTAssertEqual(error?.line, 3)
    }

    func testInsertChecksTheKey() throws {
        var authorized = AuthorizedKeys()
        let key = try CurveKeyPair.generate().publicKey
        try authorized.insert(key, label: "first")
        try authorized.insert(key, label: "second")
        XCTAssertEqual(authorized.count, 1)
        XCTAssertEqual(authorized.label(for: key), "first")
        XCTAssertEqual(curveKeyError { try authorized.insert("nope", label: "bad") }?.problem, .wrongLength(4))
    }
}
