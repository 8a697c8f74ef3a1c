import Crypto
import Foundation
import PhotoClusterCore
import PhotoClusterDownload
import PhotoClusterStorage
import PhotoClusterTestSupport
import XCTest

/// The S3 client against a real S3-compatible server (moto, checking every signature): objects
/// written and read with the right bytes and type, multipart above the part size, clear reasons
/// for bad credentials, retries through a proxy that answers 503 SlowDown.
final class S3ClientTests: XCTestCase {
    private static var server: S3TestServer?
    private var engine: DownloadEngine!

    override class func setUp() {
        server = try? S3TestServer(buckets: ["photos"])
    }

    override class func tearDown() {
        server?.stop()
        server = nil
    }

    override func setUpWithError() throws {
        guard Self.server != nil else {
            // Starting it again says why (moto missing: a skip; else a failure with moto's output).
            Self.server = try S3TestServer(buckets: ["photos"])
            return try setUpWithError()
        }
        engine = DownloadEngine()
    }

    override func tearDown() { engine?.shutdown() }

    private var server: S3TestServer { Self.server! }

    private func client(_ credentials: S3TestServer.Credentials? = nil, secret: String? = nil, token: String? = nil,
                        endpoint: String? = nil, partSize: Int = 8 << 20) -> S3Client {
        let credentials = credentials ?? server.key
        let configuration = S3Configuration(
            region: "us-east-1", endpoint: URL(string: endpoint ?? server.endpoint)!,
            credentials: S3Credentials(accessKeyID: credentials.accessKeyID, secretAccessKey: secret ?? credentials.secretAccessKey,
                                       sessionToken: token ?? credentials.sessionToken),
            partSize: partSize, retryBackoff: 0.05)
        return S3Client(configuration: configuration, engine: engine)
    }

    /// `count` rounded down to 8 bytes of noise (xorshift from a random seed: quick in a debug build).
    private func randomBytes(_ count: Int) -> Data {
        var data = Data(count: count / 8 * 8)
        var state = UInt64.random(in: 1...UInt64.max)
        data.withUnsafeMutableBytes { raw in
            for index in raw.bindMemory(to: UInt64.self).indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                raw.storeBytes(of: state, toByteOffset: index * 8, as: UInt64.self)
            }
        }
        return data
    }

    private func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    private func failure(_ body: () async throws -> Void) async -> S3Failure? {
        do {
            try await body()
            return nil
        } catch let failure as S3Failure {
            return failure
        } catch {
            XCTFail("not an S3Failure: \(error)")
            return nil
        }
    }

    func testAnObjectIsWrittenAndReadWithItsBytesAndContentType() async throws {
        let bytes = randomBytes(300_000)
        let object = S3Location(bucket: "photos", key: "round trip/a b+ü.png")
        try await client().put(bytes, at: object, contentType: "image/png")
        let stored = try server.inspect("s3://photos/round trip/").objects
        XCTAssertEqual(stored.map(\.key), ["round trip/a b+ü.png"])
        XCTAssertEqual(stored.first?.contentType, "image/png")
        XCTAssertEqual(stored.first?.sha256, sha256(bytes))
        let read = try await client().get(object, maxBytes: 1 << 20)
        XCTAssertEqual(read, bytes)
    }

    func testAnOutputOverThePartSizeGoesUpInPartsAndAppearsWhole() async throws {
        let bytes = randomBytes(11 << 20 + 4096)
        let object = S3Location(bucket: "photos", key: "multipart/big.jpg")
        try await client(partSize: 5 << 20).put(bytes, at: object, contentType: "image/jpeg")
        let listing = try server.inspect("s3://photos/multipart/")
        XCTAssertEqual(listing.objects.count, 1)
        XCTAssertEqual(listing.objects.first?.size, bytes.count)
        XCTAssertEqual(listing.objects.first?.sha256, sha256(bytes))
        XCTAssertEqual(listing.objects.first?.contentType, "image/jpeg")
        XCTAssertTrue(listing.objects.first?.etag.hasSuffix("-3") == true, "a multipart upload of three parts: \(listing.objects)")
        XCTAssertEqual(listing.pendingUploads, [])
    }

    func testAWrongSecretIsRefusedWithWhatToCheck() async throws {
        let object = S3Location(bucket: "photos", key: "refused/cat.jpg")
        let put = await failure { try await self.client(secret: "not-the-secret").put(Data("x".utf8), at: object, contentType: "image/jpeg") }
        XCTAssertTrue(put?.message.contains("S3 refused the signature of s3://photos/refused/cat.jpg (SignatureDoesNotMatch): check AWS_SECRET_ACCESS_KEY") == true,
                      put?.message ?? "it succeeded")
        XCTAssertEqual(put?.isTransient, false)
        XCTAssertFalse(put?.message.contains("not-the-secret") ?? true)
        let get = await failure { _ = try await self.client(secret: "not-the-secret").get(object, maxBytes: 1024) }
        XCTAssertTrue(get?.message.contains("check AWS_SECRET_ACCESS_KEY") == true, get?.message ?? "it succeeded")
        XCTAssertEqual(try server.inspect("s3://photos/refused/").objects, [])

        let unknown = S3TestServer.Credentials(accessKeyID: "AKIAUNKNOWNKEY000000", secretAccessKey: "x", sessionToken: nil)
        let unknownKey = await failure { _ = try await self.client(unknown).get(object, maxBytes: 1024) }
        XCTAssertTrue(unknownKey?.message.contains("does not know the access key AKIAUNKNOWNKEY000000") == true, unknownKey?.message ?? "")
        XCTAssertTrue(unknownKey?.message.contains("check AWS_ACCESS_KEY_ID") == true, unknownKey?.message ?? "")
    }

    func testTemporaryCredentialsCarryTheirSessionToken() async throws {
        let object = S3Location(bucket: "photos", key: "session/cat.jpg")
        try await client(server.session).put(Data("session".utf8), at: object, contentType: "image/jpeg")
        let read = try await client(server.session).get(object, maxBytes: 1024)
        XCTAssertEqual(read, Data("session".utf8))
        let refused = await failure { _ = try await self.client(self.server.session, token: "not-the-token").get(object, maxBytes: 1024) }
        XCTAssertTrue(refused?.message.contains("AWS_SESSION_TOKEN") == true, refused?.message ?? "it succeeded")
    }

    func testAMissingObjectIsNamed() async throws {
        let missing = await failure { _ = try await self.client().get(S3Location(bucket: "photos", key: "nowhere/cat.jpg"), maxBytes: 1024) }
        XCTAssertEqual(missing?.message, "S3 has no object s3://photos/nowhere/cat.jpg (NoSuchKey)")
        XCTAssertEqual(missing?.status, 404)
    }

    func testThrottlingAnswersAreRetriedWithBackOff() async throws {
        let proxy = try FlakyS3Proxy(target: server.endpoint, failing: 2)
        defer { proxy.stop() }
        let bytes = randomBytes(4096)
        try await client(endpoint: proxy.endpoint).put(bytes, at: S3Location(bucket: "photos", key: "retried/cat.jpg"), contentType: "image/jpeg")
        XCTAssertEqual(proxy.lines.filter { $0.hasPrefix("failed PUT /photos/retried/cat.jpg") }.count, 2, "\(proxy.lines)")
        XCTAssertEqual(proxy.lines.filter { $0.hasPrefix("relayed PUT /photos/retried/cat.jpg 200") }.count, 1, "\(proxy.lines)")
        XCTAssertEqual(try server.inspect("s3://photos/retried/").objects.first?.sha256, sha256(bytes))

        let stubborn = try FlakyS3Proxy(target: server.endpoint, failing: 100)
        defer { stubborn.stop() }
        let gaveUp = await failure { try await self.client(endpoint: stubborn.endpoint).put(bytes, at: S3Location(bucket: "photos", key: "retried/dog.jpg"), contentType: "image/jpeg") }
        XCTAssertEqual(gaveUp?.isTransient, true)
        XCTAssertTrue(gaveUp?.message.contains("(SlowDown)") == true && gaveUp?.message.hasSuffix("(after 4 tries)") == true, gaveUp?.message ?? "it succeeded")
        XCTAssertEqual(stubborn.lines.filter { $0.hasPrefix("failed PUT") }.count, 4)
    }

    func testACancelledMultipartUploadIsAbortedAndLeavesNothing() async throws {
        let observer = try FlakyS3Proxy(target: server.endpoint, failing: 0)
        defer { observer.stop() }
        let bytes = randomBytes(26 << 20)
        let client = client(endpoint: observer.endpoint, partSize: 5 << 20)
        let upload = Task { try await client.put(bytes, at: S3Location(bucket: "photos", key: "cancelled/big.png"), contentType: "image/png") }
        XCTAssertTrue(eventually(timeout: 30) { observer.lines.contains { $0.contains("partNumber=1&") && $0.hasPrefix("relayed PUT") } }, "\(observer.lines)")
        upload.cancel()
        let outcome = await upload.result
        guard case .failure(let error as S3Failure) = outcome else { return XCTFail("the upload was not cancelled: \(outcome)") }
        XCTAssertTrue(error.isCancelled, error.message)
        XCTAssertTrue(observer.lines.contains { $0.hasPrefix("relayed DELETE /photos/cancelled/big.png?uploadId=") && $0.hasSuffix(" 204") }, "\(observer.lines)")
        let listing = try server.inspect("s3://photos/cancelled/")
        XCTAssertEqual(listing.objects, [])
        XCTAssertEqual(listing.pendingUploads, [])
    }
}
