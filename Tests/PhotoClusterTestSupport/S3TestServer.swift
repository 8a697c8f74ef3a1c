import Foundation
import XCTest

/// A real S3-compatible server for the tests: moto's server mode (from the test tools' venv,
/// `scripts/install-test-tools`), with an IAM user and role, buckets and objects made by
/// `Tests/S3/s3tool.py` (boto3), then its authentication turned on: from then on every request
/// must carry a valid Signature Version 4 signature of a key moto issued.
///
/// `launcher` runs the server and the tool somewhere else, e.g. `ip netns exec NS`.
public final class S3TestServer {
    public struct Credentials: Sendable {
        public let accessKeyID: String
        public let secretAccessKey: String
        public let sessionToken: String?

        public init(accessKeyID: String, secretAccessKey: String, sessionToken: String?) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }
    }

    public struct StoredObject: Decodable, Equatable {
        public let key: String
        public let size: Int
        public let contentType: String
        public let sha256: String
        /// A multipart upload's ends in "-PARTS".
        public let etag: String

        enum CodingKeys: String, CodingKey {
            case key, size, sha256, etag
            case contentType = "content_type"
        }
    }

    public let endpoint: String
    /// A long-term access key, and temporary credentials with a session token.
    public let key: Credentials
    public let session: Credentials
    private let process: ChildProcess
    private let launcher: [String]
    private let logs: URL

    public static var venv: URL { Repository.root.appendingPathComponent(".build-test-tools/venv") }
    static var tool: URL { Repository.root.appendingPathComponent("Tests/S3/s3tool.py") }

    public init(host: String = "127.0.0.1", port: Int? = nil, buckets: [String], objects: [(url: String, file: URL)] = [], launcher: [String] = []) throws {
        let server = Self.venv.appendingPathComponent("bin/moto_server")
        guard FileManager.default.isExecutableFile(atPath: server.path) else {
            throw XCTSkip("\(server.path) is missing: run scripts/install-test-tools (make test does)")
        }
        let port = port ?? LoopbackPorts.consecutive(1)
        endpoint = "http://\(host):\(port)"
        self.launcher = launcher
        logs = Repository.temporaryDirectory("moto")
        let command = launcher + [server.path, "-H", host, "-p", "\(port)"]
        process = try ChildProcess(command[0], Array(command.dropFirst()), output: logs.appendingPathComponent("server.log"))
        let log = logs.appendingPathComponent("server.log")
        guard eventually(timeout: 30, { (try? String(contentsOf: log, encoding: .utf8))?.contains("Running on") == true }) else {
            process.killAndReap()
            throw S3TestServerFailure(message: "moto did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
        var arguments = ["setup", endpoint] + buckets.flatMap { ["--bucket", $0] }
        arguments += objects.flatMap { ["--put", "\($0.url)=\($0.file.path)"] }
        let output: Data
        do {
            output = try Self.runTool(launcher: launcher, arguments, environment: [:], logs: logs)
        } catch {
            process.killAndReap()
            throw error
        }
        struct Issued: Decodable {
            struct Key: Decodable { let id: String; let secret: String; let token: String? }
            let key: Key
            let session: Key
        }
        let issued = try JSONDecoder().decode(Issued.self, from: output)
        key = Credentials(accessKeyID: issued.key.id, secretAccessKey: issued.key.secret, sessionToken: nil)
        session = Credentials(accessKeyID: issued.session.id, secretAccessKey: issued.session.secret, sessionToken: issued.session.token)
    }

    deinit { stop() }

    public func stop() {
        process.send(signal: SIGTERM)
        if !process.waitForExit(timeout: 5) { process.killAndReap() }
        try? FileManager.default.removeItem(at: logs)
    }

    /// The environment variables a worker reads, for `env NAME=value… cluster …`.
    public func environment(_ credentials: Credentials? = nil, secret: String? = nil) -> [String] {
        let credentials = credentials ?? key
        var variables = [
            "AWS_ENDPOINT_URL=\(endpoint)", "AWS_REGION=us-east-1",
            "AWS_ACCESS_KEY_ID=\(credentials.accessKeyID)", "AWS_SECRET_ACCESS_KEY=\(secret ?? credentials.secretAccessKey)",
        ]
        if let token = credentials.sessionToken { variables.append("AWS_SESSION_TOKEN=\(token)") }
        return variables
    }

    /// Every object under `s3://BUCKET/PREFIX` (read back with boto3) and the multipart uploads
    /// neither completed nor aborted.
    public func inspect(_ url: String) throws -> (objects: [StoredObject], pendingUploads: [String]) {
        struct Listing: Decodable {
            let objects: [StoredObject]
            let pending_uploads: [String]
        }
        let environment = ["AWS_ACCESS_KEY_ID": key.accessKeyID, "AWS_SECRET_ACCESS_KEY": key.secretAccessKey]
        let listing = try JSONDecoder().decode(Listing.self, from: Self.runTool(launcher: launcher, ["inspect", endpoint, url], environment: environment, logs: logs))
        return (listing.objects.sorted { $0.key < $1.key }, listing.pending_uploads)
    }

    /// Runs s3tool.py and returns what it printed, or throws with what it said on failure.
    private static func runTool(launcher: [String], _ arguments: [String], environment: [String: String], logs: URL) throws -> Data {
        let output = logs.appendingPathComponent("tool.out"), errors = logs.appendingPathComponent("tool.err")
        let command = launcher + ["/usr/bin/env"] + environment.map { "\($0.key)=\($0.value)" }
            + [venv.appendingPathComponent("bin/python").path, tool.path] + arguments
        let child = try ChildProcess(command[0], Array(command.dropFirst()), output: output, error: errors)
        guard child.waitForExit(timeout: 60), child.status == 0 else {
            child.killAndReap()
            throw S3TestServerFailure(message: "s3tool.py \(arguments.first ?? ""): \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        }
        return try Data(contentsOf: output)
    }
}

public struct S3TestServerFailure: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
