import Foundation
import PhotoClusterTransport
import XCTest

final class CurveKeyPairTests: XCTestCase {
    func testGeneratedPairsAreZ85AndThePublicKeyDerivesFromTheSecret() throws {
        let first = try CurveKeyPair.generate()
        let second = try CurveKeyPair.generate()
        for pair in [first, second] {
            XCTAssertEqual(pair.publicKey.count, 40)
            XCTAssertEqual(pair.secretKey.count, 40)
            XCTAssertTrue(CurveKeyPair.isValidKey(pair.publicKey))
            XCTAssertTrue(CurveKeyPair.isValidKey(pair.secretKey))
            XCTAssertEqual(try CurveKeyPair.derivePublic(fromSecret: pair.secretKey), pair.publicKey)
            XCTAssertEqual(try CurveKeyPair(secretKey: pair.secretKey), pair)
            XCTAssertFalse("\(pair)".contains(pair.secretKey), "printing a pair must not show its secret")
        }
        XCTAssertNotEqual(first, second)
        let mismatch = curveKeyError { _ = try CurveKeyPair(publicKey: second.publicKey, secretKey: first.secretKey) }
        XCTAssertEqual(mismatch?.problem, .publicKeyMismatch)
    }

    func testMalformedKeysAreRefused() {
        XCTAssertEqual(curveKeyError { _ = try CurveKeyPair.derivePublic(fromSecret: "short") }?.problem, .wrongLength(5))
        let outsideAlphabet = curveKeyError { _ = try CurveKeyPair.derivePublic(fromSecret: String(repeating: "~", count: 40)) }
        XCTAssertEqual(outsideAlphabet?.problem, .notZ85("character '~' is outside the Z85 alphabet"))
        // '#' is the largest Z85 digit: "#####" is 85^5 - 1, more than 32 bits hold.
        let overflow = curveKeyError { _ = try CurveKeyPair.derivePublic(fromSecret: String(repeating: "#", count: 40)) }
        XCTAssertEqual(overflow?.problem, .notZ85("a group of 5 characters is out of range"))
    }

    func testWriteThenLoadRoundTripsWithPrivateSecretFile() throws {
        let directory = try makeTemporaryDirectory(for: self).appendingPathComponent("keys")
        let pair = try CurveKeyPair.generate()
        let files = try pair.write(to: directory, name: "worker-1")

        XCTAssertEqual(files.secretFile.lastPathComponent, "worker-1.key")
        XCTAssertEqual(files.publicFile.lastPathComponent, "worker-1.pub")
        XCTAssertEqual(try permissions(of: files.secretFile), 0o600)
        XCTAssertEqual(try permissions(of: files.publicFile), 0o644)
        XCTAssertEqual(try CurveKeyPair.load(secretFile: files.secretFile), pair)
        XCTAssertEqual(try CurveKeyPair.loadPublicKey(file: files.publicFile), pair.publicKey)

        let secretText = try String(contentsOf: files.secretFile, encoding: .utf8)
        let publicText = try String(contentsOf: files.publicFile, encoding: .utf8)
        XCTAssertTrue(secretText.contains("public-key = \"\(pair.publicKey)\""))
        XCTAssertTrue(secretText.contains("secret-key = \"\(pair.secretKey)\""))
        XCTAssertTrue(publicText.contains("public-key = \"\(pair.publicKey)\""))
        XCTAssertFalse(publicText.contains(pair.secretKey))

        // Handing out the secret file where a public one is expected is caught.
        let wrongFile = curveKeyError { _ = try CurveKeyPair.loadPublicKey(file: files.secretFile) }
        XCTAssertEqual(wrongFile?.problem, .secretKeyInPublicFile)
        XCTAssertEqual(wrongFile?.line, 3)
    }

    func testWriteRefusesToReplaceKeysUnlessAskedTo() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let old = try CurveKeyPair.generate()
        let new = try CurveKeyPair.generate()
        let files = try old.write(to: directory, name: "coordinator")

        let refused = curveKeyError { try new.write(to: directory, name: "coordinator") }
        XCTAssertEqual(refused?.problem, .alreadyExists)
        XCTAssertEqual(try CurveKeyPair.load(secretFile: files.secretFile), old)

        try new.write(to: directory, name: "coordinator", overwrite: true)
        XCTAssertEqual(try CurveKeyPair.load(secretFile: files.secretFile), new)
        XCTAssertEqual(try permissions(of: files.secretFile), 0o600)
    }

    func testSecretFileOpenToOthersIsRefusedUnlessAllowed() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let pair = try CurveKeyPair.generate()
        let files = try pair.write(to: directory, name: "open")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: files.secretFile.path)

        let error = curveKeyError { _ = try CurveKeyPair.load(secretFile: files.secretFile) }
        XCTAssertEqual(error?.problem, .permissionsTooOpen(mode: 0o644))
        XCTAssertEqual(error?.file, files.secretFile)
        XCTAssertTrue(error?.description.contains("chmod 600") ?? false)
        XCTAssertEqual(try CurveKeyPair.load(secretFile: files.secretFile, requireOwnerOnly: false), pair)
    }

    func testMalformedSecretFilesNameTheFileAndLine() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let pair = try CurveKeyPair.generate()
        let other = try CurveKeyPair.generate()
        let secret = "secret-key = \"\(pair.secretKey)\""
        let cases: [(text: String, line: Int?, problem: CurveKeyError.Problem)] = [
            ("# header\npublic-key = \"abc\"\n\(secret)\n", 2, .wrongLength(3)),
            ("\(secret.replacingOccurrences(of: "\"\(pair.secretKey.prefix(1))", with: "\"~"))\n", 1,
             .notZ85("character '~' is outside the Z85 alphabet")),
            ("# header\n\nsecret-key \"\(pair.secretKey)\"\n", 3,
             .malformedLine("expected `name = \"value\"` or a 40-character key, optionally followed by `# comment`")),
            ("\(secret)\ncolour = \"blue\"\n", 2, .unknownField("colour")),
            ("\(secret)\n\(secret)\n", 2, .duplicateField("secret-key")),
            ("public-key = \"\(pair.publicKey)\"\n", nil, .missingField("secret-key")),
            ("public-key = \"\(other.publicKey)\"\n\(secret)\n", 1, .publicKeyMismatch),
            ("\(pair.secretKey)\n", 1, .malformedLine("expected `name = \"value\"`")),
            ("secret-key = \"\(pair.secretKey)\n", 1, .malformedLine("no closing quote")),
        ]
        for (index, testCase) in cases.enumerated() {
            let file = try writeFile(testCase.text, named: "case\(index).key", in: directory)
            let error = curveKeyError { _ = try CurveKeyPair.load(secretFile: file) }
            XCTAssertEqual(error?.file, file, "case \(index)")
            XCTAssertEqual(error?.line, testCase.line, "case \(index)")
            XCTAssertEqual(error?.problem, testCase.problem, "case \(index)")
            let location = testCase.line.map { "\(file.path):\($0): " } ?? "\(file.path): "
            XCTAssertTrue(error?.description.hasPrefix(location) ?? false, "case \(index): \(String(describing: error))")
            XCTAssertFalse(error?.description.contains(pair.secretKey) ?? true, "errors never quote a key")
        }

        let missing = directory.appendingPathComponent("absent.key")
        let error = curveKeyError { _ = try CurveKeyPair.load(secretFile: missing) }
        XCTAssertEqual(error?.problem, .missingFile)
        XCTAssertEqual(error?.description, "\(missing.path): no such file")
    }
}
