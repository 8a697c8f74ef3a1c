import Foundation
import PhotoClusterCore
import PhotoClusterPlugins
import PhotoClusterProto

/// The plugin hosts of one process: child processes that load the plugin files and run plugin
/// filters, one photo at a time each, so a plugin that crashes, aborts or is killed for
/// running on takes down one host and names one photo. Other photos never share its fate: each
/// request has a host to itself, and a host that ended is replaced by a new one when a photo
/// next needs it.
///
/// Owns the idle hosts (behind `state`'s lock); a host taken for a request belongs to that
/// request's thread until it is given back or, when it died or was killed, dropped.
public final class PluginHostPool: @unchecked Sendable {
    public struct Settings: Sendable {
        /// The `cluster` binary, started as `cluster plugin-host`.
        public var executable: String
        /// Idle hosts kept for the next photos (more run at once when more photos need one).
        public var keepIdle: Int
        /// How long a filter may run on after its photo was cancelled or ran out of time before
        /// its host is killed.
        public var cancelGrace: TimeInterval
        /// How long one plugin file may take to load.
        public var loadTimeout: TimeInterval

        public init(executable: String, keepIdle: Int, cancelGrace: TimeInterval = 1, loadTimeout: TimeInterval = 30) {
            self.executable = executable
            self.keepIdle = max(1, keepIdle)
            self.cancelGrace = cancelGrace
            self.loadTimeout = loadTimeout
        }
    }

    private struct State {
        var idle: [PluginHostProcess] = []
        var closed = false
    }

    public let settings: Settings
    /// The files every host loads: those that gave at least one filter, in load order.
    let files: [String]
    /// The filters the first host reported; a later host must report the same.
    private let filterNames: Set<String>
    private let state = LockedBox(State())

    private init(settings: Settings, files: [String], filterNames: Set<String>, first: PluginHostProcess) {
        self.settings = settings
        self.files = files
        self.filterNames = filterNames
        state.withLock { $0.idle = [first] }
    }

    /// Loads `files` in a plugin host and returns the filters they offer, as stages that run in
    /// this pool's hosts, and what was refused. A file that crashes the host while it loads (or
    /// takes longer than the load timeout) is refused and the others are loaded again in a new
    /// host, so a plugin's broken initialiser costs that plugin only. No files, or none with a
    /// filter: no pool and no process.
    public static func start(files: [String], settings: Settings) -> (pool: PluginHostPool?, stages: [HostedFilterStage], report: PluginLoadReport) {
        var remaining = files
        var refusedWhileLoading: [String: String] = [:]
        while !remaining.isEmpty {
            let host: PluginHostProcess
            do {
                host = try PluginHostProcess(executable: settings.executable, files: remaining)
            } catch {
                return (nil, [], report(files, refusing: remaining, "cannot start the plugin host: \(error)", refusedWhileLoading))
            }
            switch host.awaitLoad(timeout: settings.loadTimeout) {
            case .ready(let reports):
                return finish(files, reports, refusedWhileLoading, settings: settings, host: host)
            case .died(let reports, let termination) where reports.count < remaining.count:
                refusedWhileLoading[remaining.remove(at: reports.count)] = "crashed the plugin host while loading: \(termination)"
            case .stalled(let reports) where reports.count < remaining.count:
                refusedWhileLoading[remaining.remove(at: reports.count)] =
                    "did not finish loading within \(StageTimeLimit.seconds(settings.loadTimeout)) s"
            case .died(_, let termination):
                return (nil, [], report(files, refusing: remaining, "the plugin host ended after loading: \(termination)", refusedWhileLoading))
            case .stalled:
                return (nil, [], report(files, refusing: remaining, "the plugin host stopped answering after loading", refusedWhileLoading))
            case .broken(let why):
                return (nil, [], report(files, refusing: remaining, "the plugin host failed: \(why)", refusedWhileLoading))
            }
        }
        return (nil, [], report(files, refusing: [], "", refusedWhileLoading))
    }

    private static func finish(
        _ files: [String], _ reports: [Photocluster_V1_HostedPluginLoaded], _ refusedWhileLoading: [String: String],
        settings: Settings, host: PluginHostProcess
    ) -> (PluginHostPool?, [HostedFilterStage], PluginLoadReport) {
        var report = PluginLoadReport()
        var descriptors: [FilterDescriptor] = []
        var contributing: [String] = []
        let byFile = Dictionary(reports.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        for file in files {
            if let reason = refusedWhileLoading[file] {
                report.refused.append(PluginRefusal(file: file, reason: reason))
                continue
            }
            guard let loaded = byFile[file] else { continue }
            report.refused += loaded.refusals.map { PluginRefusal(file: file, reason: $0) }
            let filters = loaded.filters.compactMap(HostedFilterMapping.descriptor)
            if !filters.isEmpty { contributing.append(file) }
            descriptors += filters
        }
        report.loaded = descriptors
        guard !descriptors.isEmpty else {
            host.kill()
            return (nil, [], report)
        }
        let pool = PluginHostPool(settings: settings, files: contributing, filterNames: Set(descriptors.map(\.name)), first: host)
        return (pool, descriptors.map { HostedFilterStage(descriptor: $0, pool: pool) }, report)
    }

    private static func report(_ files: [String], refusing refused: [String], _ reason: String, _ earlier: [String: String]) -> PluginLoadReport {
        PluginLoadReport(refused: files.compactMap { file in
            if let reason = earlier[file] { return PluginRefusal(file: file, reason: reason) }
            return refused.contains(file) ? PluginRefusal(file: file, reason: reason) : nil
        })
    }

    /// Hosts running now or idle; for tests and metrics.
    public var idleCount: Int { state.withLock { $0.idle.count } }

    /// The pids of the idle hosts.
    public var idlePIDs: [pid_t] { state.withLock { $0.idle.map(\.pid) } }

    /// Kills the idle hosts; hosts still running a request are killed when it ends. Requests
    /// from now on fail as unavailable.
    public func shutdown() {
        let idle = state.withLock { state -> [PluginHostProcess] in
            state.closed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        for host in idle { host.kill() }
    }

    // MARK: - Requests

    /// Runs `chain` on a copy of `image` in a host and returns the result: `image` itself,
    /// overwritten, when `mayOverwrite` and the size did not change, else new memory.
    /// Each filter may run `limit` seconds. Throws `FilterCancelled` (the photo was cancelled),
    /// `FilterFailure` (the plugin said it failed), or `PluginHostFailure` (the host crashed,
    /// ran out of time, broke the protocol, or could not start).
    public func run(_ chain: [HostedCall], on image: RGBAImage, mayOverwrite: Bool, limit: TimeInterval, isCancelled: () -> Bool) throws -> RGBAImage {
        guard let first = chain.first else { return image }
        func failure(_ step: Int, _ kind: PluginHostFailure.Kind) -> PluginHostFailure {
            let call = chain[min(max(step, 0), chain.count - 1)]
            return PluginHostFailure(filter: call.filter, plugin: call.plugin, kind: kind)
        }
        let host: PluginHostProcess
        do {
            host = try lease()
        } catch {
            throw PluginHostFailure(filter: first.filter, plugin: first.plugin, kind: .unavailable("\(error)"))
        }
        let passing: (descriptor: Int32, bytes: Int)?
        do {
            passing = try host.stage(image)
        } catch {
            giveBack(host)
            throw FilterFailure(filter: first.filter, reason: "no shared memory for the photo's pixels: \(error)")
        }
        let request = Photocluster_V1_HostedRun.with { run in
            run.steps = chain.map { call in .with { $0.filter = call.filter; $0.values = call.values } }
            run.width = Int32(image.width)
            run.height = Int32(image.height)
            run.arenaBytes = UInt64(passing?.bytes ?? 0)
        }
        switch host.run(request, passing: passing?.descriptor, limit: limit, grace: settings.cancelGrace, isCancelled: isCancelled) {
        case .answered(let result, let interruption):
            defer { giveBack(host) }
            let step = Int(result.failedStep)
            if result.succeeded {
                guard let output = host.result(width: Int(result.width), height: Int(result.height), reusing: mayOverwrite ? image : nil) else {
                    throw FilterFailure(
                        filter: chain[chain.count - 1].filter, reason: "the plugin returned an image of invalid size \(result.width)x\(result.height)")
                }
                return output
            }
            if result.cancelled {
                if interruption == .timedOut { throw failure(step, .timedOut(limit)) }
                throw FilterCancelled()
            }
            throw FilterFailure(filter: chain[min(max(step, 0), chain.count - 1)].filter, reason: result.error)
        case .died(let step, let termination):
            throw failure(step, .crashed(termination.description))
        case .killed(let step, .timedOut):
            throw failure(step, .timedOut(limit))
        case .killed(let step, .cancelled):
            throw failure(step, .ignoredCancellation(settings.cancelGrace))
        case .broken(let step, let why):
            throw failure(step, .brokeProtocol(why))
        }
    }

    /// An idle host, or a new one that has loaded the plugins.
    private func lease() throws -> PluginHostProcess {
        while let idle = try state.withLock({ state -> PluginHostProcess? in
            if state.closed { throw PluginHostUnavailable(reason: "the worker is shutting down") }
            return state.idle.popLast()
        }) {
            // One that ended while idle (the OOM killer, an operator) is replaced, not blamed.
            if !idle.hasEnded { return idle }
        }
        let host = try PluginHostProcess(executable: settings.executable, files: files)
        switch host.awaitLoad(timeout: settings.loadTimeout) {
        case .ready(let reports):
            let names = Set(reports.flatMap { $0.filters.map(\.name) })
            guard names == filterNames else {
                host.kill()
                throw PluginHostUnavailable(reason: "a new plugin host loaded other filters than the first (\(names.sorted()) against \(filterNames.sorted()))")
            }
            return host
        case .died(let reports, let termination):
            throw PluginHostUnavailable(reason: "a new plugin host crashed loading \(Self.file(after: reports, in: files)): \(termination)")
        case .stalled(let reports):
            throw PluginHostUnavailable(reason: "a new plugin host did not finish loading \(Self.file(after: reports, in: files))")
        case .broken(let why):
            throw PluginHostUnavailable(reason: "a new plugin host failed: \(why)")
        }
    }

    private static func file(after reports: [Photocluster_V1_HostedPluginLoaded], in files: [String]) -> String {
        reports.count < files.count ? files[reports.count] : "its plugins"
    }

    private func giveBack(_ host: PluginHostProcess) {
        let kept = state.withLock { state -> Bool in
            guard !state.closed, state.idle.count < settings.keepIdle else { return false }
            state.idle.append(host)
            return true
        }
        if !kept { host.kill() }
    }
}
