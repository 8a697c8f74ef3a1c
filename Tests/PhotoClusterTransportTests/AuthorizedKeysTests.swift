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

    func testRoleLinesGiveEachKeyItsRoles() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let keys = try (0..<4).map { _ in try CurveKeyPair.generate().publicKey }
        let file = try writeFile("""
            worker \(keys[0]) render-box-1
            client \(keys[1])   # alice's laptop
            admin  \(keys[2]) operator
            client \(keys[2])
            \(keys[3]) # from before roles
            """, named: "authorized_keys", in: directory)

        let authorized = try AuthorizedKeys(contentsOf: file)
        XCTAssertEqual(authorized.roles(of: keys[0]), [.worker])
        XCTAssertEqual(authorized.label(for: keys[0]), "render-box-1")
        XCTAssertEqual(authorized.label(for: keys[1]), "alice's laptop")
        XCTAssertEqual(authorized.roles(of: keys[2]), [.admin, .client])
        XCTAssertTrue(authorized.isAdmin(keys[2]))
        XCTAssertFalse(authorized.isAdmin(keys[1]))
        XCTAssertEqual(authorized.roles(of: keys[3]), [.worker, .client], "a key without a role may do what every key could before")
        XCTAssertEqual(authorized.keysWithoutRole.map(\.key), [keys[3]])

        XCTAssertNil(authorized.refusal(of: keys[0], at: .workers))
        XCTAssertEqual(authorized.refusal(of: keys[0], at: .clients),
                       "key \(keys[0]) (render-box-1) is a worker key; only client or admin keys may connect as a client")
        XCTAssertEqual(authorized.refusal(of: keys[1], at: .workers),
                       "key \(keys[1]) (alice's laptop) is a client key; only worker keys may connect as a worker")
        XCTAssertNil(authorized.refusal(of: keys[2], at: .clients))
        XCTAssertNil(authorized.refusal(of: keys[3], at: .workers))
        XCTAssertNil(authorized.refusal(of: keys[3], at: .clients))
        let stranger = try CurveKeyPair.generate().publicKey
        XCTAssertEqual(authorized.refusal(of: stranger, at: .workers), "key \(stranger) is not in the authorized keys")
    }

    func testRoleDirectoriesGiveTheirKeysTheirRole() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let worker = try CurveKeyPair.generate(), admin = try CurveKeyPair.generate(), old = try CurveKeyPair.generate()
        try worker.write(to: directory.appendingPathComponent("worker"), name: "w1")
        try admin.write(to: directory.appendingPathComponent("admin"), name: "ops")
        try old.write(to: directory, name: "legacy")

        let authorized = try AuthorizedKeys(contentsOf: directory)
        XCTAssertEqual(authorized.roles(of: worker.publicKey), [.worker])
        XCTAssertEqual(authorized.label(for: worker.publicKey), "w1")
        XCTAssertEqual(authorized.roles(of: admin.publicKey), [.admin])
        XCTAssertEqual(authorized.roles(of: old.publicKey), [.worker, .client])
        XCTAssertEqual(authorized.countsByRole, [.worker: 2, .client: 1, .admin: 1])

        // As a Kubernetes Secret volume lays them out: role directories that are links into `..data`.
        let secret = try makeTemporaryDirectory(for: self)
        let worker2 = try CurveKeyPair.generate()
        try worker2.write(to: secret.appendingPathComponent("..2026_01_01/worker"), name: "w2")
        try FileManager.default.createSymbolicLink(atPath: secret.appendingPathComponent("..data").path, withDestinationPath: "..2026_01_01")
        try FileManager.default.createSymbolicLink(atPath: secret.appendingPathComponent("worker").path, withDestinationPath: "..data/worker")
        XCTAssertEqual(try AuthorizedKeys(contentsOf: secret).roles(of: worker2.publicKey), [.worker])

        try FileManager.default.createDirectory(at: directory.appendingPathComponent("workers"), withIntermediateDirectories: true)
        XCTAssertEqual(curveKeyError { _ = try AuthorizedKeys(contentsOf: directory) }?.problem, .notARoleDirectory("workers"))
    }

    func testARoleThatIsNotOneOrDisagreesWithItsDirectoryNamesTheLine() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let key = try CurveKeyPair.generate().publicKey
        let misspelt = try writeFile("# keys\nwroker \(key) box\n", named: "keys.txt", in: directory)
        let error = curveKeyError { _ = try AuthorizedKeys(contentsOf: misspelt) }
        XCTAssertEqual(error?.line, 2)
        XCTAssertEqual(error?.description, "\(misspelt.path):2: 'wroker' is not a role: use worker, client or admin")

        let clients = directory.appendingPathComponent("roles/client")
        try FileManager.default.createDirectory(at: clients, withIntermediateDirectories: true)
        _ = try writeFile("admin \(key)\n", named: "sneaky.pub", in: clients)
        let conflict = curveKeyError { _ = try AuthorizedKeys(contentsOf: directory.appendingPathComponent("roles")) }
        XCTAssertEqual(conflict?.problem, .roleOutsideItsDirectory(line: "admin", directory: "client"))
    }

    func testAFingerprintChangesWhenAKeyFileIsAddedOrRemoved() throws {
        let directory = try makeTemporaryDirectory(for: self)
        try CurveKeyPair.generate().write(to: directory.appendingPathComponent("client"), name: "alice")
        let before = AuthorizedKeys.fingerprint(of: [directory])
        XCTAssertEqual(AuthorizedKeys.fingerprint(of: [directory]), before)
        try CurveKeyPair.generate().write(to: directory.appendingPathComponent("client"), name: "bob")
        let after = AuthorizedKeys.fingerprint(of: [directory])
        XCTAssertNotEqual(after, before)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("client/bob.pub"))
        XCTAssertNotEqual(AuthorizedKeys.fingerprint(of: [directory]), after)
    }
}
