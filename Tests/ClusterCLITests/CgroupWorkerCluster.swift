import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A coordinator and one `cluster worker` with its default memory flags inside a cgroup v1 memory
/// group of its own (`MemoryCgroup`), over TCP on loopback, and a server of the sample photos and
/// of photos the test made. `stop()` ends everything and removes the group.
final class CgroupWorkerCluster {
    let group: MemoryCgroup
    let server: LoopbackHTTPServer
    let work: URL
    let clientEndpoint: String
    /// Where the worker's `/metrics` answers (HOST:PORT).
    let workerMetrics: String
    private(set) var coordinator: RunningCommand!
    private(set) var worker: RunningCommand!
    private var processes: [RunningCommand] = []

    /// `made`: photos the server answers besides the samples (name → bytes and content type).
    init(label: String, limitBytes: Int, made: [String: (body: Data, type: String)], coordinatorArguments: [String] = []) throws {
        group = try MemoryCgroup(limitBytes: limitBytes)
        do {
            server = try Self.photoServer(serving: made)
        } catch {
            group.remove()
            throw error
        }
        work = Repository.temporaryDirectory(label)
        let base = LoopbackPorts.consecutive(3)
        let workerEndpoint = "tcp://127.0.0.1:\(base)"
        clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        workerMetrics = "127.0.0.1:\(base + 2)"
        do {
            coordinator = try start(CommandRunner.start([
                "coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--output-root", work.path,
            ] + coordinatorArguments))
            // The photo server is on loopback, which a worker refuses by default.
            worker = try start(group.start([
                "worker", "--insecure", "--coordinator", workerEndpoint, "--id", "bounded", "--metrics-bind", workerMetrics, "--allow-loopback",
            ]))
        } catch {
            stop()
            throw error
        }
        guard eventually(timeout: 30, { self.coordinator.stderrSoFar.contains("worker bounded joined") }) else {
            let log = worker.stderrSoFar
            stop()
            throw XCTSkip("the worker did not join: \(log)")
        }
    }

    private func start(_ process: RunningCommand) -> RunningCommand {
        processes.append(process)
        return process
    }

    /// `cluster submit --json` of `entries` (name, path on the server) into `out/NAME`, started.
    func submit(_ name: String, _ entries: [(String, String)], _ options: [String]) throws -> RunningCommand {
        let manifest = work.appendingPathComponent("\(name).json")
        try JSONSerialization.data(withJSONObject: entries.map { ["name": $0.0, "url": "\(server.baseURL)/\($0.1)"] }).write(to: manifest)
        return start(try CommandRunner.start([
            "submit", manifest.path, "--coordinator", clientEndpoint, "--out", work.appendingPathComponent(name).path, "--json",
        ] + options))
    }

    func stop() {
        for process in processes.reversed() { process.stop() }
        processes = []
        server.stop()
        try? FileManager.default.removeItem(at: work)
        group.remove()
    }

    /// A server of the sample photos and of the photos a test made; a query, which makes each URL
    /// its own, is ignored.
    private static func photoServer(serving made: [String: (body: Data, type: String)]) throws -> LoopbackHTTPServer {
        let samples = Repository.samplePhotos
        return try LoopbackHTTPServer { request in
            let name = String(request.path.split(separator: "?").first?.dropFirst() ?? "")
            if let photo = made[name] { return HTTPResponse(headers: ["Content-Type": photo.type], body: photo.body) }
            guard let body = try? Data(contentsOf: samples.appendingPathComponent(name)) else { return .notFound() }
            return HTTPResponse(headers: ["Content-Type": name.hasSuffix(".png") ? "image/png" : "image/jpeg"], body: body)
        }
    }
}
