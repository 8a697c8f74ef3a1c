import Foundation
import PhotoClusterTransport
import XCTest

/// `grant` lines of the authorized keys: their syntax, and which S3 locations they cover.
final class S3GrantTests: XCTestCase {
    func testGrantLinesGiveAKeyWhatItMayReadAndWrite() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let alice = try CurveKeyPair.generate().publicKey
        let bob = try CurveKeyPair.generate().publicKey
        let admin = try CurveKeyPair.generate().publicKey
        let file = try writeFile("""
            client \(alice) alice
            client \(bob) bob
            admin  \(admin) ops
            grant  \(alice)  write       s3://photos-out/alice/   # alice's outputs
            grant\t\(alice)\tread        s3://photos-in
            grant  \(alice)  read-write  s3://scratch/alice/2026
            """, named: "authorized", in: directory, mode: 0o644)
        let keys = try AuthorizedKeys(contentsOf: file)

        XCTAssertEqual(keys.s3Grants(of: alice).map(\.description),
                       ["write s3://photos-out/alice", "read s3://photos-in", "read-write s3://scratch/alice/2026"])
        XCTAssertEqual(keys.s3Grants(of: bob), [])
        XCTAssertTrue(keys.hasS3Grants)
        XCTAssertEqual(keys.roles(of: alice), [.client], "a grant gives no role")

        // Writes: under the prefix, at a `/` boundary only.
        XCTAssertNil(keys.s3Refusal(of: alice, bucket: "photos-out", objectKey: "alice", for: .write, defaultAccess: .deny))
        XCTAssertNil(keys.s3Refusal(of: alice, bucket: "photos-out", objectKey: "alice/2026/run", for: .write, defaultAccess: .deny))
        XCTAssertNotNil(keys.s3Refusal(of: alice, bucket: "photos-out", objectKey: "alice2", for: .write, defaultAccess: .allow))
        XCTAssertNotNil(keys.s3Refusal(of: alice, bucket: "photos-out", objectKey: "", for: .write, defaultAccess: .allow))
        XCTAssertNotNil(keys.s3Refusal(of: alice, bucket: "photos-out", objectKey: "bob/x", for: .write, defaultAccess: .allow))
        XCTAssertNotNil(keys.s3Refusal(of: alice, bucket: "photos-in", objectKey: "x", for: .write, defaultAccess: .allow), "read is not write")
        // Reads: a bucket alone covers all of it; read-write covers both.
        XCTAssertNil(keys.s3Refusal(of: alice, bucket: "photos-in", objectKey: "any/where/cat.jpg", for: .read, defaultAccess: .deny))
        XCTAssertNotNil(keys.s3Refusal(of: alice, bucket: "photos-out", objectKey: "alice/cat.jpg", for: .read, defaultAccess: .allow), "write is not read")
        XCTAssertNil(keys.s3Refusal(of: alice, bucket: "scratch", objectKey: "alice/2026/cat.jpg", for: .read, defaultAccess: .deny))
        XCTAssertNil(keys.s3Refusal(of: alice, bucket: "scratch", objectKey: "alice/2026", for: .write, defaultAccess: .deny))
        XCTAssertNotNil(keys.s3Refusal(of: alice, bucket: "scratch", objectKey: "alice/2027/cat.jpg", for: .read, defaultAccess: .allow))

        // Without a grant: the coordinator's default; admins may use any location.
        XCTAssertNil(keys.s3Refusal(of: bob, bucket: "photos-out", objectKey: "bob", for: .write, defaultAccess: .allow))
        let denied = try XCTUnwrap(keys.s3Refusal(of: bob, bucket: "photos-out", objectKey: "bob", for: .write, defaultAccess: .deny))
        XCTAssertTrue(denied.contains("the client key bob has no S3 grant"), denied)
        XCTAssertFalse(denied.contains(bob), "a message never quotes a key: \(denied)")
        XCTAssertNil(keys.s3Refusal(of: admin, bucket: "photos-out", objectKey: "alice", for: .write, defaultAccess: .deny))

        let outside = try XCTUnwrap(keys.s3Refusal(of: alice, bucket: "photos-out", objectKey: "bob", for: .write, defaultAccess: .allow))
        XCTAssertEqual(outside, "s3://photos-out/bob is outside what the client key alice may write (s3://photos-out/alice, s3://scratch/alice/2026); "
            + "use a location inside its grants, or ask the operator for a grant")
    }

    func testMalformedGrantsNameTheFileAndLine() throws {
        let directory = try makeTemporaryDirectory(for: self)
        let alice = try CurveKeyPair.generate().publicKey
        let cases: [(line: String, problem: CurveKeyError.Problem)] = [
            ("grant \(alice) write", .malformedGrant("it needs a key, an access and an s3:// URL")),
            ("grant \(alice) append s3://photos/a", .malformedGrant("'append' is not an access: use read, write or read-write")),
            ("grant \(alice) write https://photos/a", .malformedGrant("'https://photos/a' is not an s3://BUCKET[/PREFIX] URL")),
            ("grant \(alice) write s3://Photos/a", .malformedGrant("'s3://Photos/a' does not name a bucket (3 to 63 lowercase letters, digits, '.' and '-')")),
            ("grant \(alice) write s3://photos/a/../b", .malformedGrant("'s3://photos/a/../b': a prefix may not hold '.', '..' or '*' segments (a grant covers everything under its prefix)")),
            ("grant \(alice) write s3://photos/* ", .malformedGrant("'s3://photos/*': a prefix may not hold '.', '..' or '*' segments (a grant covers everything under its prefix)")),
            ("grant \(alice) write s3://photos/a s3://photos/b", .malformedGrant("one URL per line; a comment starts with #")),
            ("grant \(alice.dropLast()) write s3://photos/a", .wrongLength(39)),
        ]
        for (index, entry) in cases.enumerated() {
            let file = try writeFile("client \(alice) alice\n\(entry.line)\n", named: "keys-\(index)", in: directory, mode: 0o644)
            let error = curveKeyError { _ = try AuthorizedKeys(contentsOf: file) }
            XCTAssertEqual(error?.file, file, entry.line)
            XCTAssertEqual(error?.line, 2, entry.line)
            XCTAssertEqual(error?.problem, entry.problem, entry.line)
        }

        // A grant alone lets no key in: the key must be listed with a role, in any source.
        let bob = try CurveKeyPair.generate().publicKey
        let grants = try writeFile("# grants\ngrant \(bob) write s3://photos/bob\n", named: "grants", in: directory, mode: 0o644)
        let unlisted = curveKeyError { _ = try AuthorizedKeys(contentsOf: grants) }
        XCTAssertEqual(unlisted?.problem, .grantForUnlistedKey)
        XCTAssertEqual(unlisted?.line, 2)
        let roles = try writeFile("client \(bob) bob\n", named: "roles", in: directory, mode: 0o644)
        XCTAssertEqual(try AuthorizedKeys(contentsOf: [grants, roles]).s3Grants(of: bob).map(\.description), ["write s3://photos/bob"])
    }
}
