import ArgumentParser
import Foundation
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterProto

/// `cluster watch JOB`: the job's events as they happen, until it ends.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch", abstract: "Print a job's events live until it ends.")

    @Argument(help: "The job id.") var job: String
    @OptionGroup var connection: CoordinatorOption

    func run() async throws {
        try await connection.run { client in
            let (status, events) = try await client.watch(job)
            let started = MonotonicInstant.now
            var rate = ProgressRate()
            if let summary = status.jobs.first {
                Terminal.write("job \(job): \(summary.phase.displayName), \(ProgressReporter.counts(summary.progress))\n")
            }
            for await event in events {
                switch event.body {
                case .phase(let phase):
                    Terminal.write("phase: \(phase.displayName)\n")
                case .photo(let photo):
                    let detail = photo.state == .done ? photo.outputPath : "\(photo.stage.isEmpty ? "" : photo.stage + ": ")\(photo.reason)"
                    Terminal.write("photo \(photo.index) \(photo.name): \(photo.state == .done ? "done" : "\(photo.state)") \(detail)\n")
                case .progress(let progress):
                    rate.record(done: Int(progress.done), at: MonotonicInstant.now.seconds(since: started))
                    Terminal.write("progress: \(ProgressReporter.counts(progress))\(rate.summary(total: Int(progress.total)))\n")
                case .finished(let summary):
                    Terminal.write("finished: \(ProgressReporter.counts(summary.progress)) in \(String(format: "%.2f", summary.elapsedSeconds)) s\n")
                case .none:
                    break
                }
            }
        }
    }
}
