import ArgumentParser
import Foundation
import PhotoClusterClient

/// `cluster trace JOB [--out FILE]`: the job's task stream as a Chrome trace-event file.
struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Write a job's stages, worker by worker, as a trace that Perfetto and chrome://tracing open.",
        discussion: """
            One process per worker, one thread per lane (stages that ran at once), one event per stage of each photo \
            (download, decode, each filter, encode, write), with the photo, attempt and outcome. The coordinator keeps \
            the last stages of every job (its --task-stream-spans): an older job is traced in part, and the command says so.
            """
    )

    @Argument(help: "The job id.") var job: String
    @Option(help: ArgumentHelp("Where to write the trace; - for standard output.", valueName: "file")) var out: String?
    @OptionGroup var connection: CoordinatorOption

    func run() async throws {
        let trace = try await connection.run { try await $0.trace(job: job) }
        guard !trace.spans.isEmpty else {
            CommandFailure(
                message: "the coordinator keeps no stages of job \(job): none ran yet, or they were older than its task stream "
                    + "holds (coordinator --task-stream-spans; 0 turns the stream off)",
                status: ExitStatus.somePhotosFailed
            ).exit()
        }
        let data = try TraceEventFile.json(for: trace)
        let path = out ?? "\(job).trace.json"
        if path == "-" {
            FileHandle.standardOutput.write(data)
        } else {
            do {
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                CommandFailure(message: "could not write \(path): \(error.localizedDescription)", status: ExitStatus.usage).exit()
            }
        }
        let workers = Set(trace.spans.map(\.workerID)).count
        let photos = Set(trace.spans.map(\.photoIndex)).count
        let destination = path == "-" ? "standard output" : path
        Terminal.error("wrote \(trace.spans.count) stages of \(photos) photo(s) on \(workers) worker(s) to \(destination); open it in Perfetto (ui.perfetto.dev) or chrome://tracing")
        if trace.truncated {
            Terminal.error("note: the coordinator's task stream no longer holds the job's oldest stages, so the trace shows only its latest")
        }
    }
}
