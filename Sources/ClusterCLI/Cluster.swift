import ArgumentParser
import Foundation

/// `cluster`: filter photos on a cluster of hosts, or on this one.
struct Cluster: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "Filter photos across a cluster of hosts.",
        discussion: """
            With no --coordinator, `submit` runs an embedded coordinator and local workers in this \
            process. To use several hosts, run `cluster coordinator` on one and `cluster worker` on each.
            """,
        version: "0.1.0",
        subcommands: [
            DemoCommand.self, SubmitCommand.self, CoordinatorCommand.self, WorkerCommand.self, StatusCommand.self,
            ViewportCommand.self, CancelCommand.self, SuspendCommand.self, ResumeCommand.self, DrainCommand.self, WatchCommand.self,
            ScrollCommand.self, TopCommand.self, TraceCommand.self, SimulateCommand.self, PluginsCommand.self, KeygenCommand.self, TokenCommand.self, PluginHostCommand.self,
        ]
    )
}

@main
enum Main {
    /// Runs the command; usage errors exit with status 2 (argument-parser's default is 64).
    static func main() async {
        do {
            var command = try Cluster.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = Cluster.exitCode(for: error)
            let message = Cluster.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                exit(0)
            }
            if !message.isEmpty { Terminal.error(message) }
            exit(code == .validationFailure ? ExitStatus.usage : code.rawValue)
        }
    }
}

/// Exit statuses every command follows.
enum ExitStatus {
    static let allSucceeded: Int32 = 0
    static let somePhotosFailed: Int32 = 1
    static let usage: Int32 = 2
}
