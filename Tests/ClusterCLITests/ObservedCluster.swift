import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A coordinator and one worker as `cluster` processes with their metrics and dashboard on free
/// loopback ports, and a photo server that answers each request after `photoDelay` seconds (so
/// photos stay in flight long enough to be watched, scrolled away from, or cancelled). `secured`:
/// CURVE keys by role instead of --insecure, and so a dashboard that needs its token.
final class ObservedCluster {
    let photos: LoopbackHTTPServer
    let work: URL
    let clientEndpoint: String
    let coordinatorMetrics: String
    let workerMetrics: String
    let dashboard: String
    let coordinator: RunningCommand
    let worker: RunningCommand
    /// The CURVE options of the client commands (none without `secured`).
    let clientSecurity: [String]
    private var others: [RunningCommand] = []

    init(label: String, photoDelay: Double, workerConcurrency: Int = 1, secured: Bool = false) throws {
        let directory = Repository.samplePhotos
        photos = try LoopbackHTTPServer { request in
            guard let name = request.path.split(separator: "?").first.map({ String($0.dropFirst()) }),
                  let body = try? Data(contentsOf: directory.appendingPathComponent(name)) else { return .notFound() }
            let type = name.hasSuffix(".png") ? "image/png" : "image/jpeg"
            return HTTPResponse(headers: ["Content-Type": type], body: body, delayBeforeHeaders: photoDelay)
        }
        work = Repository.temporaryDirectory(label)
        let firstPort = LoopbackPorts.consecutive(5)
        let ports = Array(firstPort..<firstPort + 5)
        clientEndpoint = "tcp://127.0.0.1:\(ports[1])"
        coordinatorMetrics = "http://127.0.0.1:\(ports[2])"
        dashboard = "http://127.0.0.1:\(ports[3])"
        workerMetrics = "http://127.0.0.1:\(ports[4])"
        var coordinatorSecurity = ["--insecure"], workerSecurity = ["--insecure"], clientSecurity: [String] = []
        if secured {
            let keys = work.appendingPathComponent("keys"), trusted = work.appendingPathComponent("trusted")
            for (name, role) in [("coordinator", ""), ("worker", "worker"), ("client", "client")] {
                XCTAssertEqual(try CommandRunner.run(["keygen", "--name", name, "--out", keys.path]).status, 0)
                guard !role.isEmpty else { continue }
                try FileManager.default.createDirectory(at: trusted.appendingPathComponent(role), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: keys.appendingPathComponent("\(name).pub"), to: trusted.appendingPathComponent("\(role)/\(name).pub"))
            }
            let curve = { (name: String) in ["--curve-secret", keys.appendingPathComponent("\(name).key").path, "--coordinator-key", keys.appendingPathComponent("coordinator.pub").path] }
            coordinatorSecurity = ["--curve-secret", keys.appendingPathComponent("coordinator.key").path, "--authorized-keys", trusted.path,
                                   "--state", work.appendingPathComponent("state").path]
            workerSecurity = curve("worker")
            clientSecurity = curve("client")
        }
        self.clientSecurity = clientSecurity
        coordinator = try CommandRunner.start([
            "coordinator", "--bind", "tcp://127.0.0.1:\(ports[0])", "--client-bind", clientEndpoint,
            "--metrics-bind", "127.0.0.1:\(ports[2])", "--http", "127.0.0.1:\(ports[3])", "--heartbeat-ms", "250", "--output-root", work.path,
        ] + coordinatorSecurity)
        worker = try CommandRunner.start([
            "worker", "--coordinator", "tcp://127.0.0.1:\(ports[0])", "--concurrency", "\(workerConcurrency)",
            "--id", "w1", "--metrics-bind", "127.0.0.1:\(ports[4])",
        ] + workerSecurity)
        guard eventually(timeout: 20, { self.coordinator.stderrSoFar.contains("worker w1 joined") && self.coordinator.stderrSoFar.contains("dashboard and HTTP API at") }) else {
            stop()
            throw XCTSkip("the cluster did not start: \(coordinator.stderrSoFar)\n\(worker.stderrSoFar)")
        }
    }

    /// The dashboard's token, when `secured` (from dashboard.token in the state directory).
    var dashboardToken: String? {
        let file = work.appendingPathComponent("state/dashboard.token")
        return (try? String(contentsOf: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A JSON manifest of `count` sample photos (each URL unique), plus one that does not exist.
    func manifest(count: Int, broken: Bool = false) throws -> URL {
        var entries = (0..<count).map { index -> [String: String] in
            let file = Repository.samplePhotoFiles[index % Repository.samplePhotoFiles.count]
            return ["name": "p\(index)", "url": "\(photos.baseURL)/\(file)?n=\(index)"]
        }
        if broken { entries.append(["name": "missing", "url": "\(photos.baseURL)/missing.jpg"]) }
        let url = work.appendingPathComponent("photos-\(UUID().uuidString.prefix(6)).json")
        try JSONSerialization.data(withJSONObject: entries).write(to: url)
        return url
    }

    /// Submits a viewport job and returns its id (the job stays open until cancelled or done).
    func submitViewportJob(count: Int, visible: String, prefetch: Int) throws -> String {
        let submit = try CommandRunner.run([
            "submit", try manifest(count: count).path, "--coordinator", clientEndpoint, "--visible", visible,
            "--prefetch", "\(prefetch)", "--out", work.appendingPathComponent("out-\(UUID().uuidString.prefix(6))").path,
        ] + clientSecurity)
        XCTAssertEqual(submit.status, 0, submit.stderr)
        return submit.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts a batch job in the background; `finish()` on the result waits for it.
    func startBatchJob(count: Int, broken: Bool = false, filter: String = "sepia", also: [String] = []) throws -> RunningCommand {
        let submit = try CommandRunner.start([
            "submit", try manifest(count: count, broken: broken).path, "--coordinator", clientEndpoint, "--filter", filter,
            "--out", work.appendingPathComponent("out-\(UUID().uuidString.prefix(6))").path, "--json",
        ] + also + clientSecurity)
        others.append(submit)
        return submit
    }

    /// `cluster status JOB --json`: the job's summary.
    func status(of job: String) throws -> [String: Any] {
        let result = try CommandRunner.run(["status", job, "--coordinator", clientEndpoint, "--json"] + clientSecurity)
        XCTAssertEqual(result.status, 0, result.stderr)
        let reply = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (reply?["jobs"] as? [[String: Any]])?.first ?? [:]
    }

    func adopt(_ process: RunningCommand) { others.append(process) }

    /// Starts another worker process, `id`, with the first one's keys and no metrics endpoint;
    /// returns once the coordinator says it joined.
    func addWorker(_ id: String, concurrency: Int = 1) throws {
        let arguments = worker.arguments
        let security = arguments.firstIndex(of: "--curve-secret").map { Array(arguments[$0...]) } ?? ["--insecure"]
        let endpoint = arguments[arguments.firstIndex(of: "--coordinator")! + 1]
        let process = try CommandRunner.start([
            "worker", "--coordinator", endpoint, "--concurrency", "\(concurrency)", "--id", id, "--metrics-bind", "off",
        ] + security)
        others.append(process)
        guard eventually(timeout: 20, { self.coordinator.stderrSoFar.contains("worker \(id) joined") }) else {
            throw XCTSkip("worker \(id) did not join: \(process.stderrSoFar)")
        }
    }

    func stop() {
        for process in others + [worker, coordinator] { process.stop() }
        photos.stop()
        try? FileManager.default.removeItem(at: work)
    }
}

/// Plain HTTP for the tests (see `PlainHTTPClient`).
enum HTTP {
    static func get(_ url: String) throws -> (status: Int, body: Data) {
        let response = try PlainHTTPClient.send("GET", url)
        return (response.status, response.body)
    }

    /// A POST as the dashboard's own pages send it: JSON, from the dashboard's origin.
    static func post(_ url: String, json: [String: Any]) throws -> (status: Int, body: Data) {
        let body = try JSONSerialization.data(withJSONObject: json)
        let response = try PlainHTTPClient.send("POST", url, headers: ["Content-Type": "application/json", "Origin": origin(of: url)], body: body)
        return (response.status, response.body)
    }

    /// `http://host:port` of a URL.
    static func origin(of url: String) -> String {
        let components = URLComponents(string: url)
        return "http://\(components?.host ?? ""):\(components?.port ?? 80)"
    }

    static func text(_ url: String) throws -> String {
        String(decoding: try get(url).body, as: UTF8.self)
    }

    /// The JSON object at `url`; throws (without failing the test) when there is none, so it
    /// can be polled while a server starts.
    static func json(_ url: String) throws -> [String: Any] {
        let body = try get(url).body
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw PlainHTTPClient.Failure(description: "\(url): the body is not a JSON object")
        }
        return object
    }
}

/// Value of one series in a Prometheus exposition, e.g. `photocluster_photos_total{outcome="failed"}`.
func sample(_ series: String, in exposition: String) -> Double? {
    for line in exposition.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}

/// A tool the test needs, or a skip that says how to install it.
func requireTool(_ path: String, install: String = "scripts/install-test-tools") throws -> String {
    let found = ["/usr/bin", "/usr/local/bin", "/bin"].map { "\($0)/\(path)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let found else { throw XCTSkip("\(path) is missing: run \(install) (make test does)") }
    return found
}
