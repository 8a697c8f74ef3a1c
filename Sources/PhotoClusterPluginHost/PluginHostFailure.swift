import Foundation
import PhotoClusterCore

/// A plugin filter that took its host down or ran out of time: the photo fails with this
/// reason, and the worker counts and logs it.
public struct PluginHostFailure: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The host ended while the filter ran: "SIGSEGV", "SIGABRT", "exit status 3"…
        case crashed(String)
        /// The filter ran past the time limit (seconds).
        case timedOut(TimeInterval)
        /// The photo was cancelled and the filter did not stop within the grace (seconds): its
        /// host was killed. The photo ends cancelled; this is for the operator.
        case ignoredCancellation(TimeInterval)
        /// The host answered with something that is not an answer (a plugin that wrote to its
        /// socket, say); it was killed.
        case brokeProtocol(String)
        /// No host could be started, or it could not load the plugins again.
        case unavailable(String)
    }

    public let filter: String
    /// The plugin's file name, e.g. `poison.so`.
    public let plugin: String
    public let kind: Kind

    public init(filter: String, plugin: String, kind: Kind) {
        self.filter = filter
        self.plugin = plugin
        self.kind = kind
    }

    public var description: String {
        let subject = "filter \(filter) (plugin \(plugin))"
        switch kind {
        case .crashed(let how): return "\(subject) crashed: \(how)"
        case .timedOut(let limit): return "\(subject) \(StageTimeLimit.overrun(limit))"
        case .ignoredCancellation(let grace):
            return "\(subject) ran on \(StageTimeLimit.seconds(grace)) s after its photo was cancelled; its plugin host was killed"
        case .brokeProtocol(let what): return "\(subject) broke its plugin host: \(what)"
        case .unavailable(let why): return "\(subject) could not run: \(why)"
        }
    }

    /// Only a host that could not start is worth trying again elsewhere: a crash or an overrun
    /// follows from the photo and the plugin, so it would happen again on every worker.
    public var isTransient: Bool {
        if case .unavailable = kind { return true }
        return false
    }
}
