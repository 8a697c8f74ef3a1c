import ArgumentParser
import Foundation
import PhotoClusterClient
import PhotoClusterProto

/// `cluster status [JOB]`: jobs and workers of a running coordinator.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the jobs and workers of a running coordinator.")

    @Argument(help: "A job id (default: every job).")
    var job: String?

    @OptionGroup var connection: CoordinatorOption

    @Flag(help: "Print JSON.")
    var json = false

    @Option(help: ArgumentHelp("How long to wait for the coordinator's answer (a probe in a script may want less).", valueName: "seconds"))
    var timeout: Double = 5

    func validate() throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds, not \(timeout)") }
    }

    func run() async throws {
        let client = try connection.connect()
        defer { client.close() }
        let reply: StatusReply
        do {
            reply = try await client.status(job: job ?? "", timeout: timeout)
        } catch {
            CommandFailure(message: "\(error)", status: 1).exit()
        }
        if json {
            Terminal.write((try? reply.jsonString()) ?? "{}")
            Terminal.write("\n")
            return
        }
        Terminal.write("coordinator: \(reply.coordinatorID), up \(TopScreen.duration(reply.uptimeSeconds))\(TopScreen.coordinatorResident(reply))\n")
        if reply.hasLeadership { Terminal.write(Self.leadershipText(reply.leadership) + "\n") }
        let t = reply.throughput
        Terminal.write(String(
            format: "throughput: %.1f photos/s (10 s), %.1f (1 min); %.1f megapixels/s (10 s); %d queued\n",
            t.photosPerSecond10S, t.photosPerSecond60S, t.megapixelsPerSecond10S, reply.queued))
        Terminal.write("workers: \(reply.workers.count)\n")
        for worker in reply.workers {
            Terminal.write(
                "  \(worker.workerID)  host \(worker.host)  concurrency \(worker.concurrency)  in flight \(worker.inFlight)  completed \(worker.completed)"
                    + String(format: "  %.1f photos/s", worker.throughput.photosPerSecond10S) + TopScreen.memoryText(worker) + TopScreen.stateText(worker)
                    + Self.protocolText(worker) + "\n")
        }
        Terminal.write("jobs: \(reply.jobs.count)\n")
        for summary in reply.jobs {
            let p = summary.progress
            let v = summary.viewport
            let mode = summary.viewportMode ? "viewport \(v.visibleStart)..\(v.visibleEnd) prefetch \(v.prefetch)\(v.scrolling ? " scrolling" : "")" : "batch"
            Terminal.write("  \(summary.jobID)  \(summary.label)  \(summary.phase.displayName)\(summary.suspended ? " (suspended)" : "")  \(mode)  \(ProgressReporter.counts(p))  requeues \(summary.requeues)  retries \(summary.retries)\n")
            if !summary.waiting.isEmpty { Terminal.write("    waiting: \(summary.waiting)\n") }
            for photo in summary.photos where photo.state == .failed {
                Terminal.write("    failed \(photo.name): \(photo.stage): \(photo.reason)\n")
            }
        }
    }

    /// Who leads a shared journal, since when, and by which lease.
    static func leadershipText(_ leadership: Photocluster_V1_Leadership) -> String {
        let since = Date(timeIntervalSince1970: Double(leadership.sinceUnixMs) / 1000)
        let formatter = ISO8601DateFormatter()
        let held = Date().timeIntervalSince(since)
        return "leader: \(leadership.holder) since \(formatter.string(from: since)) (\(Int(max(0, held))) s), lease token \(leadership.token), "
            + String(format: "%.0f s lease", leadership.leaseSeconds)
    }

    /// A worker of an older protocol than this build's (during a rolling upgrade) says so: it is
    /// sent no photo that needs the newer one. Nothing from a coordinator that does not tell.
    static func protocolText(_ worker: Photocluster_V1_WorkerStatus) -> String {
        let current = UInt32(Photocluster_V1_ProtocolVersion.current.rawValue)
        return worker.protocolVersion == 0 || worker.protocolVersion >= current ? "" : "  protocol \(worker.protocolVersion)"
    }
}
