import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A coordinator (with its dashboard) and two `--concurrency 1` worker processes over TCP on
/// loopback, the workers loading the faulty test plugins (built from C) from `--plugins DIR`,
/// and a server of the sample photos.
final class PluginCluster {
    let photos: LoopbackHTTPServer
    let work: URL
    let plugins: URL
    let clientEndpoint: String
    let dashboard: String
    let coordinator: RunningCommand
    /// By id: "w1", "w2".
    private(set) var workersByID: [String: RunningCommand] = [:]
    let workerMetrics: [String: String]

    /// `coordinatorArguments`: more flags for the coordinator (its budgets, say).
    init(label: String, stageTimeout: Double? = nil, coordinatorArguments: [String] = []) throws {
        guard CPluginCompiler.compiler != nil else { throw XCTSkip("no C compiler (cc) on PATH: the test plugins cannot be built") }
        work = Repository.temporaryDirectory(label)
        plugins = work.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        try CPluginCompiler.build("poison", FaultyPluginSources.poison, into: plugins)
        try CPluginCompiler.build("slow", FaultyPluginSources.slow, into: plugins)
        photos = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        let base = LoopbackPorts.consecutive(5)
        let workerEndpoint = "tcp://127.0.0.1:\(base)"
        clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        dashboard = "http://127.0.0.1:\(base + 2)"
        workerMetrics = ["w1": "http://127.0.0.1:\(base + 3)", "w2": "http://127.0.0.1:\(base + 4)"]
        coordinator = try CommandRunner.start([
            "coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--http", "127.0.0.1:\(base + 2)",
            "--metrics-bind", "off", "--heartbeat-ms", "200", "--output-root", work.path,
        ] + coordinatorArguments)
        for (id, port) in [("w1", base + 3), ("w2", base + 4)] {
            var arguments = [
                "worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", id, "--plugins", plugins.path,
                "--metrics-bind", "127.0.0.1:\(port)",
            ]
            if let stageTimeout { arguments += ["--stage-timeout", String(stageTimeout)] }
            workersByID[id] = try CommandRunner.start(arguments)
        }
        guard eventually(timeout: 20, {
            self.coordinator.stderrSoFar.contains("worker w1 joined") && self.coordinator.stderrSoFar.contains("worker w2 joined")
        }) else {
            stop()
            throw XCTSkip("the cluster did not start: \(coordinator.stderrSoFar)")
        }
    }

    func stop() {
        for worker in workersByID.values { worker.stop() }
        coordinator.stop()
        photos.stop()
        try? FileManager.default.removeItem(at: work)
    }

    /// A manifest of the 14 sample photos (or the first `count`), each URL made unique with `tag`.
    func manifest(tag: String, count: Int? = nil) throws -> URL {
        let url = work.appendingPathComponent("photos-\(tag).txt")
        try Repository.samplePhotoFiles.prefix(count ?? Repository.samplePhotoFiles.count).map { "\(photos.baseURL)/\($0)?\(tag)" }.joined(separator: "\n")
            .write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Where `submit(tag:…)` writes its outputs.
    func outputDirectory(tag: String) -> URL { work.appendingPathComponent("out-\(tag)") }

    /// `cluster submit` of the 14 sample photos (or the first `count`) through `filters` (and
    /// `options`); its JSON report.
    func submit(tag: String, count: Int? = nil, filters: [String], options: [String] = []) throws -> (status: Int32, report: [String: Any], stderr: String) {
        let out = outputDirectory(tag: tag)
        let arguments = ["submit", try manifest(tag: tag, count: count).path, "--coordinator", clientEndpoint, "--out", out.path, "--json"]
            + filters.flatMap { ["--filter", $0] } + options
        let result = try CommandRunner.run(arguments, timeout: 120)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        return (result.status, report, result.stderr)
    }

    /// The pids of a process's children (its plugin hosts, for a worker).
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(pid_t.init).filter { ProcessStat(pid: $0)?.parent == pid }
    }

    /// CPU seconds used so far by a process and its children now alive.
    static func cpuSeconds(ofTree pid: pid_t) -> Double {
        ([pid] + children(of: pid)).compactMap { ProcessStat(pid: $0)?.cpuSeconds }.reduce(0, +)
    }
}

/// The fields of `/proc/PID/stat` the tests read.
struct ProcessStat {
    let parent: pid_t
    let cpuSeconds: Double

    init?(pid: pid_t) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command name: state, ppid, …; utime and stime are fields 14 and 15 of the line.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let parent = pid_t(fields[1]), let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        self.parent = parent
        self.cpuSeconds = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
