import Foundation
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterEmbedded
import PhotoClusterProto
import PhotoClusterStorage
import PhotoClusterWorker

/// Submits a job to an embedded cluster or a running coordinator, follows it to the end, and
/// reports it. Returns the exit status.
struct JobRunner {
    let options: JobOptions

    /// This host's filters (logging refused plugins once), to check a job's filters against:
    /// the plugin host that listed them is not kept.
    static func filters(_ pluginDirectory: String?) -> FilterRegistry {
        let (registry, report, pool) = FilterCatalog.load(pluginDirectory: pluginDirectory)
        pool?.shutdown()
        FilterCatalog.logRefusals(report, prefix: "cluster")
        return registry
    }

    func run(_ submit: SubmitJob) async throws -> Int32 {
        if let endpoints = options.coordinatorEndpoints {
            let client = try ClusterClient(endpoints: endpoints, curve: try options.security.settings())
            let endpoint = endpoints.joined(separator: " or ")
            defer { client.close() }
            if submit.viewportMode { return try await open(submit, with: client, where: endpoint) }
            return try await follow(submit, with: client, where: endpoint)
        }
        let cores = UsableCores.count
        let catalog = FilterCatalog.load(pluginDirectory: options.plugins, hosts: cores)
        defer { catalog.pool?.shutdown() }
        // This cluster runs this one job and stops: a finished photo's download is kept only
        // for another photo of the job with the same URL.
        var engine = WorkerEngine.Configuration()
        engine.keepsFinishedDownloads = Set(submit.photos.map(\.url)).count < submit.photos.count
        let cluster = try EmbeddedCluster(
            workers: options.workers ?? cores, totalConcurrency: max(cores, options.workers ?? cores), engine: engine,
            filters: catalog.registry, storage: try embeddedStorage(), allowLoopback: true)
        do {
            try cluster.start()
        } catch {
            throw CommandFailure(message: "cannot start the embedded cluster: \(error)", status: ExitStatus.somePhotosFailed)
        }
        let client = try ClusterClient(endpoint: cluster.clientEndpoint, context: cluster.context)
        defer {
            client.close()
            cluster.stop()
        }
        return try await follow(submit, with: client, where: "the embedded cluster")
    }

    /// The embedded workers and coordinator read S3 with this process's AWS_* environment, and
    /// write a shared directory as the user named it (it is theirs, being on this host).
    private func embeddedStorage() throws -> WorkerStorage {
        let s3: S3Configuration
        do {
            s3 = try S3Configuration.fromEnvironment()
        } catch {
            throw CommandFailure.usage("\(error)")
        }
        guard case .shared(let directory)? = try options.outputPlace() else { return WorkerStorage(s3: s3) }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return WorkerStorage(s3: s3, sharedRoots: try SharedOutputRoots([directory]))
        } catch {
            throw CommandFailure.usage("--out-shared \(directory): \(error)")
        }
    }

    /// Viewport mode: the job stays open on the coordinator; print its id and leave.
    private func open(_ submit: SubmitJob, with client: ClusterClient, where place: String) async throws -> Int32 {
        do {
            let job = try await client.submit(submit)
            if options.json {
                Terminal.write("{\"job\": \"\(job.id)\", \"total\": \(job.total)}\n")
            } else {
                Terminal.write("\(job.id)\n")
                Terminal.error("job \(job.id) is open in viewport mode on \(place); move it with `cluster viewport \(job.id) --visible A..B`, follow it with `cluster watch \(job.id)`, end it with `cluster cancel \(job.id)`")
            }
            return ExitStatus.allSucceeded
        } catch let error as ClusterClientError {
            throw refused(error, place)
        }
    }

    /// A job the coordinator refused: exit 2 when the request itself must change (an output
    /// directory outside its root or another key's, one holding another job's outputs, an S3
    /// location outside the key's grants, a job over its size limits, a client or coordinator
    /// that must be upgraded first), 1 otherwise.
    private func refused(_ error: ClusterClientError, _ place: String) -> CommandFailure {
        let mustChange: Set<Photocluster_V1_Refusal> = [.outputOutsideRoot, .tooLarge, .outputNotOwned, .outputOccupied, .storageNotGranted, .protocolVersion]
        return CommandFailure(message: "\(place) refused the job: \(error.message)", status: mustChange.contains(error.refusal) ? ExitStatus.usage : ExitStatus.somePhotosFailed)
    }

    private func follow(_ submit: SubmitJob, with client: ClusterClient, where place: String) async throws -> Int32 {
        // The bar and the report need only the counts and the summary, not every photo's status;
        // the table of a large job lists the photos that did not succeed (see `JobReport`).
        var submit = submit
        submit.events = .counts
        if !options.json && submit.photos.count > JobReport.photoTableLimit { submit.summary = .unsuccessful }
        let job: SubmittedJob
        do {
            job = try await client.submit(submit)
        } catch let error as ClusterClientError {
            throw refused(error, place)
        }
        let progress = ProgressReporter(total: job.total, enabled: !options.json)
        progress.started(job: job.id, place: place)
        let following = Task { () -> JobSummary? in
            var summary: JobSummary?
            for await event in job.events {
                switch event.body {
                case .progress(let counts):
                    progress.update(counts)
                case .finished(let finished):
                    summary = finished
                default:
                    break
                }
            }
            return summary
        }
        // A coordinator that died and never comes back would keep this waiting for ever.
        let watchdog = SilenceWatchdog(client: client, place: place, giveUpAfter: options.giveUpAfter) { following.cancel() }
        defer { watchdog.stop() }
        let summary = await following.value
        progress.finish()
        guard let summary else {
            if watchdog.gaveUp {
                throw CommandFailure(
                    message: "no word from \(place) for \(Int(options.giveUpAfter)) s: stopped waiting for job \(job.id), which may go on there "
                        + "(`cluster watch \(job.id)` follows it again, `cluster status \(job.id)` shows it; --give-up-after 0 waits for ever)",
                    status: ExitStatus.somePhotosFailed)
            }
            throw CommandFailure(message: "lost contact with \(place) before job \(job.id) finished; `cluster status \(job.id)` shows its state", status: ExitStatus.somePhotosFailed)
        }
        let report = JobReport(summary: summary)
        if options.json {
            Terminal.write(report.json() + "\n")
        } else {
            Terminal.write(report.table())
        }
        return report.allSucceeded ? ExitStatus.allSucceeded : ExitStatus.somePhotosFailed
    }
}

/// Warns on stderr when the coordinator has been silent for a while, so a user is never left
/// staring at nothing, and gives up after `giveUpAfter` seconds of silence (0: never), calling
/// `onGiveUp` once. `@unchecked Sendable`: `gaveUp` is guarded by its box; the rest is touched
/// only by the timer's serial handler.
final class SilenceWatchdog: @unchecked Sendable {
    private let timer: DispatchSourceTimer
    private let gaveUpBox = LockedBox(false)

    /// Whether it gave up waiting.
    var gaveUp: Bool { gaveUpBox.current }

    init(client: ClusterClient, place: String, after seconds: TimeInterval = 10, giveUpAfter: TimeInterval = 0, onGiveUp: @escaping () -> Void = {}) {
        timer = DispatchSource.makeTimerSource(queue: .global())
        var warned = false
        let check = min(2, max(0.2, giveUpAfter > 0 ? giveUpAfter / 4 : 2))
        timer.schedule(deadline: .now() + min(seconds, check), repeating: check)
        timer.setEventHandler { [gaveUpBox] in
            let silence = client.silence
            if giveUpAfter > 0 && silence > giveUpAfter && !gaveUpBox.current {
                gaveUpBox.withLock { $0 = true }
                onGiveUp()
            } else if silence > seconds && !warned {
                warned = true
                let giving = giveUpAfter > 0 ? "gives up after \(Int(giveUpAfter)) s" : "the job goes on there"
                Terminal.error("warning: no word from \(place) for \(Int(silence)) s; still waiting (\(giving); Ctrl-C stops waiting)")
            } else if silence < seconds {
                warned = false
            }
        }
        timer.resume()
    }

    func stop() { timer.cancel() }
}
