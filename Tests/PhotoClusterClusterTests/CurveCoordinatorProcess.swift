import Foundation
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

/// A `cluster coordinator` process with CURVE keys, for tests of what one key may do to another:
/// a key pair for the coordinator and for each named peer, each peer's public key authorized in
/// its role, an output root, and the coordinator's log and metrics. Stopped (SIGINT, then a kill)
/// by `stop()`; its files are removed with it.
final class CurveCoordinatorProcess {
    let work: URL
    let workerEndpoint: String
    let clientEndpoint: String
    /// The coordinator's /metrics URL.
    let metrics: String
    /// The coordinator's --output-root.
    let root: URL
    private(set) var pairs: [String: CurveKeyPair] = [:]
    private let process: ChildProcess
    private let log: URL

    /// `peers`: name → role ("worker", "client" or "admin").
    init(name: String, peers: [(name: String, role: String)]) throws {
        guard FileManager.default.isExecutableFile(atPath: Repository.clusterBinary.path) else {
            throw XCTSkip("\(Repository.clusterBinary.path) is missing: `make test` builds it first")
        }
        work = Repository.temporaryDirectory(name)
        root = work.appendingPathComponent("root")
        let keys = work.appendingPathComponent("keys"), trusted = work.appendingPathComponent("trusted")
        for peer in [(name: "coordinator", role: "")] + peers {
            pairs[peer.name] = try CurveKeyPair.generate()
            try pairs[peer.name]!.write(to: keys, name: peer.name)
            guard !peer.role.isEmpty else { continue }
            try FileManager.default.createDirectory(at: trusted.appendingPathComponent(peer.role), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: keys.appendingPathComponent("\(peer.name).pub"), to: trusted.appendingPathComponent("\(peer.role)/\(peer.name).pub"))
        }
        let port = LoopbackPorts.consecutive(3)
        workerEndpoint = "tcp://127.0.0.1:\(port)"
        clientEndpoint = "tcp://127.0.0.1:\(port + 1)"
        metrics = "http://127.0.0.1:\(port + 2)/metrics"
        log = work.appendingPathComponent("coordinator.log")
        process = try ChildProcess(Repository.clusterBinary.path, [
            "coordinator", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--http", "off", "--metrics-bind", "127.0.0.1:\(port + 2)",
            "--curve-secret", keys.appendingPathComponent("coordinator.key").path, "--authorized-keys", trusted.path, "--output-root", root.path,
        ], output: log)
        XCTAssertTrue(eventually(timeout: 20) { self.logText.contains("workers connect to") }, logText)
    }

    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Whether the process has not exited (an abort in libzmq ends it).
    var isRunning: Bool { process.isRunning }

    /// What a peer of `name` connects with.
    func curve(_ name: String) -> CurveClientSettings { CurveClientSettings(keys: pairs[name]!, serverPublicKey: pairs["coordinator"]!.publicKey) }

    func stop() {
        process.send(signal: SIGINT)
        if !process.waitForExit(timeout: 5) { process.killAndReap() }
        try? FileManager.default.removeItem(at: work)
    }
}
