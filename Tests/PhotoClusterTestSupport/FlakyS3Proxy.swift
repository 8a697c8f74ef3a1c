import Foundation

/// `Tests/S3/flaky_proxy.py` in front of an S3 server: it answers the first `failing` requests
/// with 503 SlowDown itself and relays the others unchanged, logging each.
public final class FlakyS3Proxy {
    public let endpoint: String
    private let process: ChildProcess
    private let log: URL

    public init(target: String, failing: Int, host: String = "127.0.0.1", launcher: [String] = []) throws {
        let port = LoopbackPorts.consecutive(1)
        endpoint = "http://\(host):\(port)"
        log = Repository.temporaryDirectory("proxy").appendingPathComponent("proxy.log")
        let script = Repository.root.appendingPathComponent("Tests/S3/flaky_proxy.py").path
        let targetAuthority = target.replacingOccurrences(of: "http://", with: "")
        let command = launcher + ["/usr/bin/python3", "-u", script, "--listen", "\(host):\(port)", "--target", targetAuthority, "--fail", "\(failing)"]
        process = try ChildProcess(command[0], Array(command.dropFirst()), output: log)
        guard eventually(timeout: 10, { self.lines.contains("listening") }) else {
            process.killAndReap()
            throw S3TestServerFailure(message: "the flaky proxy did not start: \(lines)")
        }
    }

    deinit { stop() }

    /// What it has done so far: "failed METHOD PATH" and "relayed METHOD PATH STATUS" lines.
    public var lines: [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    public func stop() {
        process.killAndReap()
        try? FileManager.default.removeItem(at: log.deletingLastPathComponent())
    }
}
