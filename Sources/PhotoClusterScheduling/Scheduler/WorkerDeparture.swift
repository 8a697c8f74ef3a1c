import Foundation

/// Why the coordinator stops counting on a worker, and what that says about the photos it held.
package enum WorkerDeparture {
    /// It said goodbye, having handed its photos back.
    case left
    /// It said hello again as the same process (it lost touch for a moment).
    case reconnected
    /// It said hello again as a new process: the old one died, with the photos it held.
    case restarted
    /// No heartbeat for this many seconds: dead, stopped or cut off.
    case silent(TimeInterval)
    /// Its key is no longer authorized as a worker's (the reason says why): its connection is dropped.
    case keyRemoved(String)

    package var reason: String {
        switch self {
        case .left: return "it left"
        case .reconnected: return "it registered again"
        case .restarted: return "it restarted"
        case .silent(let seconds): return "no heartbeat for \(String(format: "%.1f", seconds)) s"
        case .keyRemoved(let refusal): return "\(refusal); its connection is dropped"
        }
    }

    /// The worker died, or may have: each photo it held is charged the loss.
    package var charges: Bool {
        switch self {
        case .left, .reconnected, .keyRemoved: return false
        case .restarted, .silent: return true
        }
    }

    /// The same process may yet come back, which would show it had not died.
    package var mayComeBack: Bool {
        if case .silent = self { return true }
        return false
    }
}
