import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A `cluster coordinator` process with CURVE keys by role (trusted/worker/, trusted/client/,
/// trusted/admin/), an output root of its own (work/root), a state directory, and its metrics
/// and dashboard on free loopback ports; workers and client commands run as processes with the
/// key of a name. Photos come from a loopback server that answers after `photoDelay` seconds.
final class SecuredCluster {
    let work: URL
    let keys: URL
    let trusted: URL
    let root: URL
    let state: URL
    let workerEndpoint: String
    let clientEndpoint: String
    let metrics: String
    let dashboard: String
    let photos: LoopbackHTTPServer
    private(set) var coordinator: RunningCommand!
    private var coordinatorArguments: [String] = []
    private var processes: [RunningCommand] = []
    /// Added to the environment of the coordinator and the workers (S3 settings).
    private let environment: [String: String]

    /// `roles`: each key's name and role (worker, client or admin); "coordinator" is made too.
    /// `grants`: `grant` lines of a second authorized-keys file, by key name (e.g. ("alice",
    /// "write s3://photos/alice")); `environment`: for the coordinator and the workers.
    init(label: String, roles: [String: String], photoDelay: Double = 0, coordinatorArguments: [String] = [],
         grants: [(name: String, grant: String)] = [], environment: [String: String] = [:]) throws {
        self.environment = environment
        work = Repository.temporaryDirectory(label)
        keys = work.appendingPathComponent("keys")
        trusted = work.appendingPathComponent("trusted")
        root = work.appendingPathComponent("root")
        state = work.appendingPathComponent("state")
        let directory = Repository.samplePhotos
        photos = try LoopbackHTTPServer { request in
            guard let name = request.path.split(separator: "?").first.map({ String($0.dropFirst()) }),
                  let body = try? Data(contentsOf: directory.appendingPathComponent(name)) else { return .notFound() }
            return HTTPResponse(headers: ["Content-Type": "image/jpeg"], body: body, delayBeforeHeaders: photoDelay)
        }
        let first = LoopbackPorts.consecutive(4)
        workerEndpoint = "tcp://127.0.0.1:\(first)"
        clientEndpoint = "tcp://127.0.0.1:\(first + 1)"
        metrics = "http://127.0.0.1:\(first + 2)"
        dashboard = "http://127.0.0.1:\(first + 3)"
        for (name, role) in roles.merging(["coordinator": ""], uniquingKeysWith: { $1 }) {
            let made = try CommandRunner.run(["keygen", "--name", name, "--out", keys.path])
            XCTAssertEqual(made.status, 0, made.stderr)
            guard !role.isEmpty else { continue }
            try FileManager.default.createDirectory(at: trusted.appendingPathComponent(role), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: keys.appendingPathComponent("\(name).pub"), to: trusted.appendingPathComponent("\(role)/\(name).pub"))
        }
        var grantSources: [String] = []
        if !grants.isEmpty {
            let file = work.appendingPathComponent("grants")
            let lines = try grants.map { "grant \(try Self.publicKey(of: $0.name, in: keys)) \($0.grant)" }
            try (["# S3 grants"] + lines).joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            grantSources = ["--authorized-keys", file.path]
        }
        self.coordinatorArguments = [
            "coordinator", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--heartbeat-ms", "250",
            "--curve-secret", keys.appendingPathComponent("coordinator.key").path, "--authorized-keys", trusted.path,
            "--output-root", root.path, "--state", state.path,
            "--metrics-bind", "127.0.0.1:\(first + 2)", "--http", "127.0.0.1:\(first + 3)",
        ] + grantSources + coordinatorArguments
        try startCoordinator()
    }

    /// Stops the coordinator (SIGINT) and starts it again on the same state directory.
    func restartCoordinator() throws {
        coordinator.stop()
        try startCoordinator()
    }

    private func startCoordinator() throws {
        coordinator = try start(coordinatorArguments)
        guard eventually(timeout: 20, { self.coordinator.stderrSoFar.contains("dashboard at") }) else {
            stop()
            throw XCTSkip("the coordinator did not start: \(coordinator.stderrSoFar)")
        }
    }

    /// The CURVE options of a client or worker with the key `name`.
    func curve(_ name: String) -> [String] {
        ["--curve-secret", keys.appendingPathComponent("\(name).key").path, "--coordinator-key", keys.appendingPathComponent("coordinator.pub").path]
    }

    func publicKey(_ name: String) throws -> String {
        try Self.publicKey(of: name, in: keys)
    }

    private static func publicKey(of name: String, in keys: URL) throws -> String {
        let text = try String(contentsOf: keys.appendingPathComponent("\(name).pub"), encoding: .utf8)
        return try XCTUnwrap(text.split(separator: "\"").dropFirst().first.map(String.init), text)
    }

    /// A worker process with the key `name` (and id `name`).
    func startWorker(_ name: String) throws -> RunningCommand {
        try start(["worker", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", name, "--metrics-bind", "off"] + curve(name))
    }

    /// A client command (submit, status, cancel…) with the key `name`, to its end.
    func run(_ arguments: [String], as name: String) throws -> CommandResult {
        try CommandRunner.run(arguments + ["--coordinator", clientEndpoint] + curve(name), timeout: 60)
    }

    /// A text manifest of `count` sample photos (each URL unique).
    func manifest(count: Int) throws -> URL {
        let url = work.appendingPathComponent("photos-\(UUID().uuidString.prefix(6)).txt")
        let lines = (0..<count).map { "\(photos.baseURL)/\(Repository.samplePhotoFiles[$0 % Repository.samplePhotoFiles.count])?n=\($0)" }
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Submits a viewport-mode job (it stays open) as `name`; returns its id. Without `out`, into
    /// a directory of its own (a directory an open job writes into is never given to another).
    func openJob(as name: String, count: Int = 4, out: String? = nil) throws -> String {
        let out = out ?? "out-\(UUID().uuidString.prefix(6))"
        let submit = try run(["submit", try manifest(count: count).path, "--visible", "0..0", "--out", out], as: name)
        XCTAssertEqual(submit.status, 0, submit.stderr)
        return submit.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func start(_ arguments: [String]) throws -> RunningCommand {
        let process = try CommandRunner.start(arguments, environment: environment)
        processes.append(process)
        return process
    }

    func stop() {
        for process in processes { process.stop() }
        photos.stop()
        try? FileManager.default.removeItem(at: work)
    }
}
