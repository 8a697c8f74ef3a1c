import Foundation
import PhotoClusterTransport
import XCTest

/// HTTP API tokens in the authorized keys: listed by digest, each a principal with a role that
/// no socket admits, made and revoked by `TokenFile` without touching the other lines.
final class APITokenTests: XCTestCase {
    func testATokenIsListedByItsDigestAndStandsForItsPrincipal() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let worker = try CurveKeyPair.generate().publicKey
        let file = try writeFile("worker \(worker) render-1\n", named: "authorized", in: directory, mode: 0o644)
        let tokens = TokenFile(file)
        let token = try tokens.create(name: "alice-site", role: .client, comment: "alice's uploads")

        XCTAssertTrue(token.hasPrefix(APIToken.prefix))
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertFalse(text.contains(token), "the file holds the token itself")
        XCTAssertTrue(text.contains("token client alice-site \(APIToken.digest(of: token))  # alice's uploads"))
        XCTAssertTrue(text.hasPrefix("worker \(worker) render-1\n"), "the other lines changed")

        let keys = try AuthorizedKeys(contentsOf: file)
        XCTAssertEqual(keys.principal(forToken: token), "token:alice-site")
        XCTAssertNil(keys.principal(forToken: token + "x"))
        XCTAssertEqual(keys.roles(of: "token:alice-site"), [.client])
        XCTAssertFalse(keys.isAdmin("token:alice-site"))
        XCTAssertEqual(keys.countsByRole, [.worker: 1], "a token counted as a key")
        for endpoint in ServerEndpoint.allCases {
            XCTAssertNotNil(keys.refusal(of: "token:alice-site", at: endpoint), "a token's principal was admitted at the \(endpoint) socket")
        }
        let listed = try tokens.list()
        XCTAssertEqual(listed.map(\.name), ["alice-site"])
        XCTAssertEqual(listed.map(\.role), [.client])
        XCTAssertEqual(listed.map(\.comment), ["alice's uploads"])
    }

    func testRevokingATokenRemovesItAndItsGrantsOnly() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let client = try CurveKeyPair.generate().publicKey
        let file = try writeFile("client \(client) laptop\ngrant \(client) write s3://out/laptop\n", named: "authorized", in: directory, mode: 0o644)
        let tokens = TokenFile(file)
        let ops = try tokens.create(name: "ops", role: .admin, comment: nil)
        _ = try tokens.create(name: "site", role: .client, comment: nil)
        try String(contentsOf: file, encoding: .utf8).appending("grant token:site write s3://out/site\n").write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try AuthorizedKeys(contentsOf: file).s3Grants(of: "token:site").count, 1)

        XCTAssertTrue(try tokens.revoke(name: "site"))
        XCTAssertFalse(try tokens.revoke(name: "site"))
        let keys = try AuthorizedKeys(contentsOf: file)
        XCTAssertFalse(keys.contains("token:site"))
        XCTAssertTrue(keys.s3Grants(of: "token:site").isEmpty)
        XCTAssertEqual(keys.principal(forToken: ops), "token:ops")
        XCTAssertTrue(keys.isAdmin("token:ops"))
        XCTAssertEqual(keys.s3Grants(of: client).count, 1, "the client key's grant went with the token's")
    }

    func testMalformedTokenLinesNameTheFileAndLine() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let digest = APIToken.digest(of: "pct_x")
        for (line, expected) in [
            ("token worker w \(digest)", "not a token's role"),
            ("token client bad/name \(digest)", "may hold only letters"),
            ("token client a sha256:12", "64 lowercase hex digits"),
            ("token client a", "needs a role, a name and a digest"),
        ] {
            let file = try writeFile("# tokens\n\(line)\n", named: "authorized", in: directory, mode: 0o644)
            XCTAssertThrowsError(try AuthorizedKeys(contentsOf: file), line) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("\(file.path):2"), text)
                XCTAssertTrue(text.contains(expected), text)
            }
        }
        let twice = try writeFile("token client a \(digest)\ntoken admin a \(digest)\n", named: "twice", in: directory, mode: 0o644)
        XCTAssertThrowsError(try AuthorizedKeys(contentsOf: twice)) { XCTAssertTrue("\($0)".contains("listed twice"), "\($0)") }
        XCTAssertThrowsError(try TokenFile(twice).create(name: "b", role: .worker, comment: nil))
    }
}
