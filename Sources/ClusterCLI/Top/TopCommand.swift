import ArgumentParser
import Foundation
import PhotoClusterClient

/// `cluster top`: a live view of a running coordinator's workers, queues and jobs.
struct TopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "Watch a running coordinator: workers with load and throughput, per-stage queues, jobs with progress.",
        discussion: "On a terminal the view refreshes in place until Ctrl-C; otherwise it prints one line per refresh."
    )

    @OptionGroup var connection: CoordinatorOption

    @Option(help: ArgumentHelp("Seconds between refreshes.", valueName: "seconds"))
    var interval = 1.0

    @Option(help: ArgumentHelp("Stop after this many refreshes (default: until Ctrl-C).", valueName: "n"))
    var count: Int?

    @Flag(help: "Print plain lines even on a terminal.")
    var plain = false

    func validate() throws {
        guard interval >= 0.1 else { throw ValidationError("--interval must be at least 0.1 seconds") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func run() async throws {
        let client = try connection.connect()
        defer { client.close() }
        let screen = plain || !Terminal.stdoutIsTerminal ? nil : LiveScreen()
        let refreshes = Task {
            var done = 0
            while !Task.isCancelled, done < (count ?? .max) {
                await refresh(client, on: screen)
                done += 1
                if done < (count ?? .max) { try? await Task.sleep(nanoseconds: UInt64(interval * 1e9)) }
            }
        }
        // Ctrl-C ends the refreshes (the waiter itself is simply left behind at exit).
        let interrupt = Task {
            _ = await SignalWaiter.waitForTermination()
            refreshes.cancel()
        }
        await refreshes.value
        interrupt.cancel()
        screen?.leave()
    }

    private func refresh(_ client: ClusterClient, on screen: LiveScreen?) async {
        do {
            let reply = try await client.status(timeout: max(2, interval * 2))
            if let screen {
                screen.draw(TopScreen.render(reply, endpoint: client.endpoint, width: screen.width))
            } else {
                Terminal.write(TopScreen.line(reply) + "\n")
            }
        } catch {
            let message = "coordinator not reachable at \(connection.coordinator.replacingOccurrences(of: ",", with: " or ")): \(error); retrying (is `cluster coordinator` running? check --coordinator and the keys)"
            if let screen { screen.draw([message]) } else { Terminal.error(message) }
        }
    }
}

/// The terminal while `top` runs: the alternate screen, cursor hidden, redrawn in place.
final class LiveScreen: @unchecked Sendable {
    init() {
        Terminal.write("\u{1B}[?1049h\u{1B}[?25l")
    }

    var width: Int {
        var size = winsize()
        return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 120
    }

    /// Home, each line cleared to its end, then everything below cleared.
    func draw(_ lines: [String]) {
        Terminal.write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\n") + "\n\u{1B}[J")
    }

    func leave() {
        Terminal.write("\u{1B}[?25h\u{1B}[?1049l")
    }
}
