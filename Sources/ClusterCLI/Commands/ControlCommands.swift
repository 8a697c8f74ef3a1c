import ArgumentParser
import Foundation
import PhotoClusterClient

/// `cluster viewport JOB --visible A..B [--prefetch K] [--scrolling]`
struct ViewportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "viewport",
        abstract: "Set which photos of a job the client looks at; the cluster follows at once.",
        discussion: "While --scrolling, the job is suspended everywhere. Once settled, work out of view is cancelled, photos in view start (visible first) and the job resumes."
    )

    @Argument(help: "The job id.") var job: String
    @Option(help: ArgumentHelp("Visible manifest indices, inclusive.", valueName: "A..B")) var visible: IndexRange
    @Option(help: "Photos on each side of the visible range to prefetch at lower priority.") var prefetch = 0
    @Flag(help: "The user is scrolling: suspend the job until a settled viewport arrives.") var scrolling = false
    @OptionGroup var connection: CoordinatorOption

    func run() async throws {
        let summary = try await connection.run { try await $0.setViewport(job: job, visible: visible.range, prefetch: prefetch, scrolling: scrolling) }
        Terminal.write("job \(job): viewport \(visible) prefetch \(prefetch)\(scrolling ? " scrolling" : ""), epoch \(summary.viewport.epoch); \(ProgressReporter.counts(summary.progress))\n")
    }
}

/// `cluster cancel JOB [--photo NAME]...`
struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel a job, or some of its photos.")

    @Argument(help: "The job id.") var job: String
    @Option(name: .customLong("photo"), help: ArgumentHelp("A photo to cancel; repeat for more (default: the whole job).", valueName: "name"))
    var photos: [String] = []
    @OptionGroup var connection: CoordinatorOption

    func run() async throws {
        try await connection.run { try await $0.cancel(job: job, photos: photos) }
        Terminal.write(photos.isEmpty ? "job \(job) cancelled\n" : "cancelled \(photos.count) photo(s) of job \(job)\n")
    }
}

/// `cluster suspend JOB`
struct SuspendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "suspend", abstract: "Suspend a job on every worker: running operations finish, none start.")

    @Argument(help: "The job id.") var job: String
    @OptionGroup var connection: CoordinatorOption

    func run() async throws {
        try await connection.run { try await $0.suspend(job: job) }
        Terminal.write("job \(job) suspended\n")
    }
}

/// `cluster resume JOB`
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume a suspended job.")

    @Argument(help: "The job id.") var job: String
    @OptionGroup var connection: CoordinatorOption

    func run() async throws {
        try await connection.run { try await $0.resume(job: job) }
        Terminal.write("job \(job) resumed\n")
    }
}

/// `cluster drain WORKER`: an admin's drain (see `DrainRequest`).
struct DrainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drain",
        abstract: "Drain a worker: it finishes what runs, takes nothing more and stays idle until it restarts (admin keys only).")

    @Argument(help: "The worker's id (cluster status lists them).") var worker: String
    @Option(
        name: .customLong("drain-timeout"),
        help: ArgumentHelp("Seconds its running photos may take before they are handed back (default: the worker's own --drain-timeout).", valueName: "seconds"))
    var drainTimeout: Double?
    @OptionGroup var connection: CoordinatorOption

    func validate() throws {
        if let drainTimeout, !(drainTimeout.isFinite && (0...3600).contains(drainTimeout)) {
            throw ValidationError("--drain-timeout must be between 0 and 3600 seconds")
        }
    }

    func run() async throws {
        let client = try connection.connect()
        defer { client.close() }
        do {
            try await client.drain(worker: worker, drainTimeout: drainTimeout)
        } catch let error as ClusterClientError {
            // A key that is not an admin's is refused again whatever it tries (exit 2).
            CommandFailure(message: error.message, status: error.refusal == .notPermitted ? ExitStatus.usage : 1).exit()
        }
        Terminal.write("worker \(worker) draining: it finishes what runs, then stays idle until it restarts (cluster status shows it drained)\n")
    }
}
