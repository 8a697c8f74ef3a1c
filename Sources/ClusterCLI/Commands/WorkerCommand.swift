import ArgumentParser
import Foundation
import PhotoClusterCore
import PhotoClusterDashboard
import PhotoClusterDownload
import PhotoClusterPluginHost
import PhotoClusterTransport
import PhotoClusterWorker

/// `cluster worker`: run photo graphs for a coordinator until SIGINT or SIGTERM, then drain
/// (running photos finish within `--drain-timeout`, the rest is handed back) and leave.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run a worker that filters photos for a coordinator (it keeps retrying to connect)."
    )

    @Option(help: ArgumentHelp(CoordinatorListHelp.worker, valueName: "endpoint[,endpoint…]"))
    var coordinator = "tcp://127.0.0.1:7000"

    @Option(help: ArgumentHelp("Photos processed at once (default: the cores this process may use: its CPU affinity, capped by a cgroup CPU quota).", valueName: "n"))
    var concurrency: Int?

    @Option(help: ArgumentHelp("This worker's id (default: host, process id and a random suffix).", valueName: "id"))
    var id: String?

    @Option(help: ArgumentHelp("A directory of filter plugins (*.so) to load besides the default one.", valueName: "dir"))
    var plugins: String?

    @OptionGroup var security: ClientSecurityOptions

    @Flag(help: "Connect over TCP without CURVE keys.")
    var insecure = false

    @Option(name: .customLong("allow-host"), help: ArgumentHelp("Only download from these hosts, CIDR ranges or addresses (repeat; *.example.com matches subdomains).", valueName: "entry"))
    var allowHosts: [String] = []

    @Option(name: .customLong("deny-host"), help: ArgumentHelp("Never download from these hosts, CIDR ranges or addresses (repeat). Besides, loopback (unless --allow-loopback), link-local, cloud metadata, unspecified (0.0.0.0, ::) and carrier-grade NAT (100.64.0.0/10) addresses, and IPv6 forms embedding them, are refused whatever the lists say; private ranges are allowed.", valueName: "entry"))
    var denyHosts: [String] = []

    @Flag(name: .customLong("allow-loopback"), help: "Download from loopback addresses (127.0.0.0/8, ::1), refused by default as they reach this host's own services: for photos served on this host. Allows nothing else of what is refused by default.")
    var allowLoopback = false

    @Option(
        name: .customLong("plugin-env"),
        help: ArgumentHelp(
            "Pass this environment variable on to plugin hosts (repeat). They get only PATH, the locale (LANG, LANGUAGE, LC_*), TZ, TMPDIR, LD_LIBRARY_PATH, SWIFT_BACKTRACE, PHOTOCLUSTER_PLUGINS and PHOTOCLUSTER_KERNELS otherwise.",
            valueName: "name"))
    var pluginEnv: [String] = []

    @Option(name: .customLong("stage-timeout"), help: ArgumentHelp("Seconds a JPEG decode, each filter and an encode of a photo may run before the photo fails (plugin filters that run on are killed with their plugin host).", valueName: "seconds"))
    var stageTimeout = StageTimeLimit.defaultSeconds

    @Option(
        name: .customLong("drain-timeout"),
        help: ArgumentHelp(
            "Seconds running photos may take to finish after SIGTERM or SIGINT (or `cluster drain`) before they are handed back (0: hand everything back at once). The default stays below the 30 s grace that Kubernetes, compose and systemd give, leaving time to hand back and leave.",
            valueName: "seconds"))
    var drainTimeout = WorkerConfiguration.defaultDrainTimeout

    @Option(name: .customLong("cache-mb"), help: ArgumentHelp("Megabytes of intermediate results kept for photos that come back.", valueName: "n"))
    var cacheMB = 256

    @Option(
        name: .customLong("memory-limit"),
        help: ArgumentHelp(
            "Mebibytes this worker process may use in all (default: its cgroup's memory limit, else \(Int(MemoryLimit.physicalShare * 100))% of physical memory). Photos are admitted only while their computed peaks fit in it, less \(MemoryBudget.baselineBytes >> 20) MiB for the process and the stage cache (--cache-mb, at most a quarter of the rest); a photo whose peak alone is larger fails at once.",
            valueName: "MiB"))
    var memoryLimit: Int?

    @Option(
        name: .customLong("max-output-pixels"),
        help: ArgumentHelp("The largest result a photo may have, in pixels (by default the source cap): a larger one fails before it is computed.", valueName: "n"))
    var maxOutputPixels = WorkerEngine.Configuration.defaultMaxOutputPixels

    @Option(
        name: .customLong("stage-priority"),
        help: ArgumentHelp(
            "How the threads that decode, filter and encode compete for the CPU: \(ThreadPriority.syntax) (default \(WorkerEngine.Configuration.defaultStagePriority)); the loop, ZeroMQ and download threads stay at normal priority.",
            valueName: "priority"))
    var stagePriority = WorkerEngine.Configuration.defaultStagePriority.description

    @Option(name: .customLong("metrics-bind"), help: ArgumentHelp("Where Prometheus scrapes /metrics: HOST:PORT or off (default 127.0.0.1:9465; when it is taken, metrics are off).", valueName: "address"))
    var metricsBind: String?

    @OptionGroup var storage: StorageOptions

    @Option(name: .customLong("s3-part-mb"), help: ArgumentHelp("Outputs larger than this many MiB go to S3 as a multipart upload, in parts of this size (at least 5).", valueName: "n"))
    var s3PartMB = 8

    @OptionGroup var logging: LogOptions

    func validate() throws {
        if let concurrency, !(1...1024).contains(concurrency) { throw ValidationError("--concurrency must be between 1 and 1024") }
        guard drainTimeout.isFinite, (0...3600).contains(drainTimeout) else { throw ValidationError("--drain-timeout must be between 0 and 3600 seconds") }
        guard (0...1_048_576).contains(cacheMB) else { throw ValidationError("--cache-mb must be between 0 and 1048576") }
        guard stageTimeout.isFinite, stageTimeout > 0, stageTimeout <= 86_400 else {
            throw ValidationError("--stage-timeout must be more than 0 and at most 86400 seconds")
        }
        if let memoryLimit, !(256...(1 << 30)).contains(memoryLimit) {
            throw ValidationError("--memory-limit must be between 256 and \(1 << 30) MiB")
        }
        guard maxOutputPixels >= 1 else { throw ValidationError("--max-output-pixels must be at least 1") }
        guard (5...5120).contains(s3PartMB) else { throw ValidationError("--s3-part-mb must be between 5 and 5120 (S3's part sizes)") }
        try HTTPListenerOption.validate(metricsBind, flag: "--metrics-bind")
        for name in pluginEnv where !PluginHostEnvironment.isVariableName(name) {
            throw ValidationError("--plugin-env: \(PluginHostEnvironment.InvalidName(name: name))")
        }
        guard ThreadPriority(stagePriority) != nil else {
            throw ValidationError("--stage-priority must be \(ThreadPriority.syntax), got \"\(stagePriority)\"")
        }
        let endpoints = try CoordinatorListHelp.endpoints(coordinator)
        let network = endpoints.filter(InsecureEndpoint.isNetwork)
        if security.curveSecret == nil && !insecure && !network.isEmpty {
            throw ValidationError(InsecureEndpoint.refusal("connecting", network))
        }
        do {
            _ = try DownloadPolicy(allow: allowHosts, deny: denyHosts, allowLoopback: allowLoopback)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        let logger = logging.start(role: "worker")
        let context = try ZMQContext()
        let policy = try DownloadPolicy(allow: allowHosts, deny: denyHosts, allowLoopback: allowLoopback)
        let s3 = try storage.s3(partMB: s3PartMB)
        let sharedRoots = try storage.roots()
        let limit = memoryLimit.map { MemoryLimit(bytes: $0 << 20, source: .option) } ?? MemoryLimit.detect()
        let cacheBytes = MemoryBudget.cacheBytes(wanted: cacheMB << 20, limit: limit.bytes)
        let budget = MemoryBudget(limit: limit, cacheBytes: cacheBytes)
        var engine = WorkerEngine.Configuration(
            downloadLimits: DownloadLimits(policy: policy), cacheBytes: cacheBytes, stageTimeout: stageTimeout,
            storage: WorkerStorage(s3: s3, sharedRoots: sharedRoots), memoryBudget: budget, maxOutputPixels: maxOutputPixels)
        if let concurrency { engine.concurrency = concurrency }
        engine.stagePriority = ThreadPriority(stagePriority)!
        try PluginHostEnvironment.passAlso(pluginEnv)
        let (filters, report, pluginHosts) = FilterCatalog.load(pluginDirectory: plugins, hosts: engine.concurrency)
        FilterCatalog.logRefusals(report, prefix: "worker")
        let endpoints = try CoordinatorListHelp.endpoints(coordinator)
        var configuration = WorkerConfiguration(
            coordinatorEndpoint: endpoints[0], workerID: id ?? WorkerConfiguration.defaultWorkerID(), engine: engine, filters: filters,
            curve: try security.settings())
        configuration.coordinatorEndpoints = endpoints
        configuration.drainTimeout = drainTimeout
        let node = WorkerNode(configuration: configuration, context: context)
        node.logger = logger
        do {
            try node.start()
        } catch {
            CommandFailure(message: "cannot connect to \(endpoints[0]): \(error)", status: 1).exit()
        }
        let others = endpoints.count > 1 ? " (then \(endpoints.dropFirst().joined(separator: ", ")) when it refuses or falls silent)" : ""
        Terminal.error("worker \(node.configuration.workerID): connecting to \(endpoints[0])\(others) with concurrency \(engine.concurrency); Ctrl-C stops")
        let cacheNote = cacheBytes < cacheMB << 20 ? " (--cache-mb lowered to fit)" : ""
        Terminal.error(
            "worker \(node.configuration.workerID): memory budget \(ByteCount(budget.bytes)) for photos: limit \(limit), less \(ByteCount(MemoryBudget.baselineBytes)) for the process and \(ByteCount(cacheBytes)) of stage cache\(cacheNote); results up to \(maxOutputPixels) pixels")
        logger.info("memory: budget \(budget.bytes) bytes, limit \(limit.bytes) bytes (\(limit)), cache \(cacheBytes) bytes")
        logger.info("storage: \(s3); shared roots: \(sharedRoots)")
        let metrics = await HTTPListenerOption(flag: "--metrics-bind", given: metricsBind, defaultAddress: "127.0.0.1:9465")
            .start(what: "metrics", router: MetricsRoutes.router { node.metrics.exporter.exposition() }, logger: logger)
        let signal = await SignalWaiter.waitForTermination()
        // A second signal ends the process at once (SignalWaiter restores their default action).
        let timeout = drainTimeout
        let end = await node.drain(timeout: timeout) { running, handedBack in
            Terminal.error("worker: signal \(signal); draining: \(running) photos running, \(handedBack) handed back; up to \(Int(timeout.rounded(.up))) s (a second signal stops at once)")
        }
        Terminal.error("worker: drained: \(end.running - end.handedBackAtTimeout) photos finished here, \(end.handedBack + end.handedBackAtTimeout) handed back; leaving")
        await metrics?.stop()
        node.stop()
        pluginHosts?.shutdown()
        context.terminate()
    }
}
