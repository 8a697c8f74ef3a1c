import ArgumentParser
import Foundation
import Logging
import PhotoClusterCoordinator
import PhotoClusterCore
import PhotoClusterDashboard
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

    @Option(name: .customLong("max-worker-losses"), help: ArgumentHelp("Workers a photo may be on when they die (crash, OOM killer) before it fails as one that may crash workers; a photo lost once runs alone on a worker from then on.", valueName: "n"))
    var maxWorkerLosses = 3

    @Option(name: .customLong("write-timeout"), help: ArgumentHelp("Seconds a write to an output directory may take before it is given up and its photo fails (a stuck file system, such as a hung network mount).", valueName: "seconds"))
    var writeTimeout: Double = 60

    @Option(help: ArgumentHelp("Where the journal lives: a directory (SQLite), or a PostgreSQL database as postgres://[USER@]HOST[:PORT]/DB (the password from PGPASSWORD or ~/.pgpass; needs --output-root); a restart on the same state continues its jobs.", valueName: "dir|uri"))
    var state: String?

    @Option(name: .customLong("lease-seconds"), help: ArgumentHelp("With a --state database: how long the lead lasts unrenewed. Any number of coordinators may share the database; one leads (renewing its lease every third of this), the others stand by, binding nothing, and one takes over at most this long after the leader dies or freezes (at once when it stops cleanly).", valueName: "seconds"))
    var leaseSeconds: Double = 5

    @Option(name: .customLong("keep-finished"), help: ArgumentHelp("Finished jobs kept for status, watch and the dashboard (the last to finish); older ones are forgotten, in memory and in the journal, and their outcome stays in index.json in their output directory.", valueName: "n"))
    var keepFinished = 100

    @Option(
        name: .customLong("writer-priority"),
        help: ArgumentHelp(
            "How the threads that write results compete for the CPU: \(ThreadPriority.syntax) (default \(CoordinatorConfiguration.defaultWriterPriority)); the loop stays at normal priority.",
            valueName: "priority"))
    var writerPriority = CoordinatorConfiguration.defaultWriterPriority.description

    @Option(name: .customLong("curve-secret"), help: ArgumentHelp("The coordinator's secret key file (from `cluster keygen`); enables CURVE on both endpoints.", valueName: "file"))
    var curveSecret: String?

    @Option(name: .customLong("authorized-keys"), help: ArgumentHelp("Public keys let in, each with its role: a file of `ROLE KEY [comment]` lines (ROLE: worker, client or admin), or a directory of .pub files in worker/, client/ and admin/ subdirectories; repeat for more. `grant KEY read|write|read-write s3://BUCKET[/PREFIX]` lines give a key the S3 locations it may read and write. Reloaded on SIGHUP and when the files change.", valueName: "path"))
    var authorizedKeys: [String] = []

    @Flag(help: "Listen on TCP without CURVE keys (anyone who can reach the ports can join, submit, and act on every job).")
    var insecure = false

    @Option(name: .customLong("output-root"), help: ArgumentHelp("The only directory jobs write under: a client's --out is relative to it (or absolute inside it). Default: outputs/ in a --state directory, else the working directory; required with a --state database.", valueName: "dir"))
    var outputRoot: String?

    @OptionGroup var limits: CoordinatorLimitOptions

    @OptionGroup var workerBudgets: WorkerBudgetOptions

    @Option(name: .customLong("metrics-bind"), help: ArgumentHelp("Where Prometheus scrapes /metrics: HOST:PORT or off (default 127.0.0.1:9464).", valueName: "address"))
    var metricsBind: String?

    @Option(name: .customLong("http"), help: ArgumentHelp("Where the web dashboard and the HTTP API (/v1, docs/http-api.md) listen: HOST:PORT or off (default 127.0.0.1:8080).", valueName: "address"))
    var http: String?

    @Option(name: .customLong("task-stream-spans"), help: ArgumentHelp("Stages of photos kept for the dashboard's task stream and `cluster trace` (the latest; about 110 bytes each: 11 MB at the default); 0 keeps none.", valueName: "n"))
    var taskStreamSpans = CoordinatorConfiguration.defaultTaskStreamSpans

    @Option(name: .customLong("http-token-file"), help: ArgumentHelp("A file (mode 600) holding the dashboard's token; default with CURVE: a new token each start, in dashboard.token in a --state directory.", valueName: "file"))
    var httpTokenFile: String?

    @Option(name: .customLong("http-host"), help: ArgumentHelp("Another host name the dashboard answers to (the Host header), besides its listening address; repeat for more.", valueName: "name"))
    var httpHosts: [String] = []

    @OptionGroup var httpAPI: HTTPAPIOptions

    @OptionGroup var storage: StorageOptions

    @Option(name: .customLong("s3-default-access"), help: ArgumentHelp("What a client key without any S3 grant may do with s3:// outputs and photos: allow (any location the workers' credentials reach) or deny. Default: deny with CURVE keys, allow with --insecure.", valueName: "allow|deny"))
    var s3DefaultAccess: String?

    @OptionGroup var logging: LogOptions

    func validate() throws {
        guard heartbeatMs >= 10 else { throw ValidationError("--heartbeat-ms must be at least 10") }
        guard liveness >= 1 else { throw ValidationError("--liveness must be at least 1") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        guard maxWorkerLosses >= 1 else { throw ValidationError("--max-worker-losses must be at least 1") }
        guard writeTimeout >= 0.1 else { throw ValidationError("--write-timeout must be at least 0.1 seconds") }
        guard leaseSeconds >= 1 && leaseSeconds <= 300 else { throw ValidationError("--lease-seconds must be between 1 and 300") }
        guard keepFinished >= 1 else { throw ValidationError("--keep-finished must be at least 1") }
        guard taskStreamSpans >= 0 else { throw ValidationError("--task-stream-spans must be 0 (off) or more") }
        guard ThreadPriority(writerPriority) != nil else {
            throw ValidationError("--writer-priority must be \(ThreadPriority.syntax), got \"\(writerPriority)\"")
        }
        if let s3DefaultAccess, S3DefaultAccess(rawValue: s3DefaultAccess) == nil {
            throw ValidationError("--s3-default-access must be allow or deny, not \"\(s3DefaultAccess)\"")
        }
        try HTTPListenerOption.validate(metricsBind, flag: "--metrics-bind")
        try HTTPListenerOption.validate(http, flag: "--http")
        try limits.validate()
        try workerBudgets.validate()
        if curveSecret != nil && authorizedKeys.isEmpty {
            throw ValidationError("--curve-secret needs --authorized-keys: with CURVE on, only listed workers and clients may join")
        }
        if let state, PostgresURI.isDatabase(state), outputRoot == nil {
            throw ValidationError(
                "--state \(PostgresURI.redacted(state)) needs --output-root (there is no state directory to default to): give a directory every coordinator on that database can reach, on a shared file system, so the outputs the coordinator writes are found by whichever leads next (jobs whose workers store their outputs, --out-shared or s3://, do not write there)")
        }
        let network = [bind, clientBind].filter(InsecureEndpoint.isNetwork)
        if curveSecret == nil && !insecure && !network.isEmpty {
            throw ValidationError(InsecureEndpoint.refusal("listening", network))
        }
    }

    func curveSettings() throws -> CurveServerSettings? {
        guard let curveSecret else { return nil }
        do {
            return CurveServerSettings(
                keys: try CurveKeyPair.load(secretFile: URL(fileURLWithPath: curveSecret)),
                authorized: try AuthorizedKeys(contentsOf: keySources))
        } catch let error as CurveKeyError {
            CommandFailure.usage("\(error)").exit()
        }
    }

    var keySources: [URL] { authorizedKeys.map { URL(fileURLWithPath: $0) } }

    /// `--state` when it names a directory; nil for a database or none.
    var stateDirectoryPath: String? {
        state.flatMap { PostgresURI.isDatabase($0) ? nil : $0 }
    }

    /// `--output-root`, or its default: outputs/ in the state directory, else the working directory.
    var outputRootDirectory: URL {
        if let outputRoot { return URL(fileURLWithPath: outputRoot, isDirectory: true) }
        if let state = stateDirectoryPath { return URL(fileURLWithPath: state, isDirectory: true).appendingPathComponent("outputs", isDirectory: true) }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    }

    func run() async throws {
        let curve = try curveSettings()
        let logger = logging.start(role: "coordinator")
        let context = try ZMQContext()
        let configuration = try makeConfiguration(curve: curve)
        if let database = configuration.stateDatabase {
            return try await runSharing(database, configuration: configuration, logger: logger, context: context)
        }
        let node = startNode(configuration, context: context, logger: logger)
        let metrics = await HTTPListenerOption(flag: "--metrics-bind", given: metricsBind, defaultAddress: "127.0.0.1:9464")
            .start(what: "metrics", router: MetricsRoutes.router { node.metricsExposition() }, logger: logger)
        let running = try await serve(node, logger: logger)
        let signal = await SignalWaiter.waitForTermination()
        Terminal.error("coordinator: signal \(signal), shutting down")
        await running.stop()
        await metrics?.stop()
        context.terminate()
    }

    func makeConfiguration(curve: CurveServerSettings?) throws -> CoordinatorConfiguration {
        var configuration = CoordinatorConfiguration(
            workerEndpoint: bind, clientEndpoint: clientBind,
            heartbeatInterval: Double(heartbeatMs) / 1000, heartbeatLiveness: liveness, maxAttempts: UInt32(maxAttempts),
            maxWorkerLosses: UInt32(maxWorkerLosses),
            stateDirectory: stateDirectoryPath.map { URL(fileURLWithPath: $0, isDirectory: true) }, curve: curve,
            finishedJobsKept: keepFinished, outputRoot: outputRootDirectory, limits: limits.limits, writeTimeout: writeTimeout,
            writerPriority: ThreadPriority(writerPriority)!,
            s3: try storage.s3(), sharedRoots: try storage.roots(), taskStreamSpans: taskStreamSpans,
            s3DefaultAccess: s3DefaultAccess.flatMap(S3DefaultAccess.init(rawValue:)))
        configuration.workerBudgets = workerBudgets.budgets
        configuration.stateDatabase = state.flatMap { PostgresURI.isDatabase($0) ? $0 : nil }
        return configuration
    }

    /// A node started with `configuration`, or the process ends saying why.
    func startNode(_ configuration: CoordinatorConfiguration, context: ZMQContext, logger: Logger,
                   onLeadershipLost: (@Sendable (String) -> Void)? = nil) -> CoordinatorNode {
        let node = CoordinatorNode(configuration: configuration, context: context)
        node.logger = logger
        node.onLeadershipLost = onLeadershipLost
        do {
            try node.start()
        } catch {
            let hint = error is ZMQError
                ? "is another coordinator running on that port? choose others with --bind and --client-bind"
                : configuration.stateDatabase != nil
                    ? "and check that --output-root names a writable directory"
                    : "check that --state and --output-root name writable directories"
            CommandFailure(message: "cannot start: \(error) (\(hint))", status: 1).exit()
        }
        Terminal.error("coordinator: workers connect to \(node.boundWorkerEndpoint), clients to \(node.boundClientEndpoint); jobs write under \(node.outputRootPath ?? "-"); Ctrl-C stops")
        return node
    }

    /// The key reloader and the dashboard of a started node, stopped together with it.
    func serve(_ node: CoordinatorNode, logger: Logger) async throws -> RunningCoordinator {
        var reloader: KeyReloader?
        if let curve = node.configuration.curve {
            Terminal.error("coordinator: CURVE on; public key \(curve.keys.publicKey); \(curve.authorized.count) authorized key(s), reloaded on SIGHUP and when their files change")
            reloader = KeyReloader(sources: keySources, node: node, logger: logger)
            reloader?.start()
        }
        let dashboard = try await startDashboard(node, secured: node.configuration.curve != nil, logger: logger)
        return RunningCoordinator(node: node, reloader: reloader, dashboard: dashboard)
    }
}
