import ArgumentParser
import Foundation
import PhotoClusterClient
import PhotoClusterCore

/// `cluster scroll JOB --trace FILE`: replays a recorded scroll as viewport changes.
struct ScrollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scroll",
        abstract: "Replay a scroll trace as viewport changes.",
        discussion: "A trace has one event per line: `time_ms visible_start visible_end scrolling(0|1)`; blank lines and # comments are ignored."
    )

    @Argument(help: "The job id.") var job: String
    @Option(help: ArgumentHelp("The trace file.", valueName: "file")) var trace: String
    @Option(help: "Prefetch margin sent with every viewport.") var prefetch = 0
    @Option(help: "Replay speed: 2 plays twice as fast.") var speed = 1.0
    @OptionGroup var connection: CoordinatorOption

    func validate() throws {
        guard speed > 0 else { throw ValidationError("--speed must be positive") }
    }

    func run() async throws {
        let events: [ScrollTrace.Event]
        do {
            events = try ScrollTrace.parse(contentsOf: URL(fileURLWithPath: trace))
        } catch let error as ScrollTrace.ParseError {
            CommandFailure.usage(error.description).exit()
        }
        let started = Date()
        try await connection.run { client in
            for (number, event) in events.enumerated() {
                let due = Double(event.timeMs) / 1000 / speed
                let wait = due - Date().timeIntervalSince(started)
                if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000)) }
                let summary = try await client.setViewport(job: job, visible: event.visible, prefetch: prefetch, scrolling: event.scrolling)
                if !event.scrolling || number == events.count - 1 {
                    Terminal.write(String(format: "%7.2f s  event %d/%d  visible %d..%d%@  %@\n",
                        Date().timeIntervalSince(started), number + 1, events.count, event.visible.lowerBound, event.visible.upperBound,
                        event.scrolling ? " scrolling" : "", ProgressReporter.counts(summary.progress)))
                }
            }
        }
    }
}
