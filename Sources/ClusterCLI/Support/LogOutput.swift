import ArgumentParser
import Foundation
import Logging

/// Log lines on standard error: `TIME LEVEL ROLE: message key=value…`, metadata sorted by key
/// so `job=… photo=…` always read the same way.
struct LogOutput: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let pairs = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let error = event.error.map { " error=\($0)" } ?? ""
        let time = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        Terminal.error("\(time)Z \(event.level) \(label): \(event.message)\(pairs)\(error)")
    }

    /// Sends every logger of the process here (once, at start-up), at `level`.
    static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = LogOutput(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
