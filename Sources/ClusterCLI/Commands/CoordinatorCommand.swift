import ArgumentParser
import Foundation
import PhotoClusterCoordinator
import PhotoClusterTransport

/// `cluster coordinator`: accept workers and clients until SIGINT or SIGTERM.
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinator",
        abstract: "Run a coordinator that hands photos to workers and takes jobs from clients."
    )

    @Option(help: ArgumentHelp("Endpoint workers connect to.", valueName: "endpoint"))
    var bind = "tcp://127.0.0.1:7000"

    @Option(name: .customLong("client-bind"), help: ArgumentHelp("Endpoint clients (`cluster submit --coordinator`) connect to.", valueName: "endpoint"))
    var clientBind = "tcp://127.0.0.1:7001"

    @Option(name: .customLong("heartbeat-ms"), help: "Heartbeat interval in milliseconds.")
    var heartbeatMs = 1000

    @Option(help: "Missed heartbeats before a worker is declared lost.")
    var liveness = 3

    @Option(name: .customLong("max-attempts"), help: "Tries per photo for transient failures.")
    var maxAttempts = 3

    @Option(help: ArgumentHelp("Directory of the SQLite journal; a restart with the same directory continues its jobs.", valueName: "dir"))
    var state: String?

    func validate() throws {
        guard heartbeatMs >= 10 else { throw ValidationError("--heartbeat-ms must be at least 10") }
        guard liveness >= 1 else { throw ValidationError("--liveness must be at least 1") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
    }

    func run() async throws {
        let context = try ZMQContext()
        let node = CoordinatorNode(
            configuration: CoordinatorConfiguration(
                workerEndpoint: bind, clientEndpoint: clientBind,
                heartbeatInterval: Double(heartbeatMs) / 1000, heartbeatLiveness: liveness, maxAttempts: UInt32(maxAttempts),
                stateDirectory: state.map { URL(fileURLWithPath: $0, isDirectory: true) }),
            context: context)
        node.log = { Terminal.error("coordinator: \($0)") }
        do {
            try node.start()
        } catch {
            let hint = error is ZMQError
                ? "is another coordinator running on that port? choose others with --bind and --client-bind"
                : "check that --state names a writable directory"
            CommandFailure(message: "cannot start: \(error) (\(hint))", status: 1).exit()
        }
        Terminal.error("coordinator: workers connect to \(node.boundWorkerEndpoint), clients to \(node.boundClientEndpoint); Ctrl-C stops")
        let signal = await SignalWaiter.waitForTermination()
        Terminal.error("coordinator: signal \(signal), shutting down")
        node.stop()
        context.terminate()
    }
}
