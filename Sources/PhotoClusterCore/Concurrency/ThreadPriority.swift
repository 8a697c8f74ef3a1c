#if canImport(Glibc)
import Glibc
#endif

/// How a thread competes for the CPU with the other threads of its host: batch work (a photo's
/// stages, result writes) gives way, so a thread that waits for a message (a node's loop,
/// ZeroMQ's I/O thread, the download thread) runs as soon as one arrives instead of waiting for
/// the scheduler to get round to it.
///
/// Linux keeps a nice value and a policy per thread, so each applies to the calling thread only.
/// Raising the nice value and choosing `SCHED_BATCH` or `SCHED_IDLE` need no privilege; going
/// back does (so a thread given a lower priority keeps it). A thread inherits its creator's.
public enum ThreadPriority: Sendable, Equatable, CustomStringConvertible {
    /// Whatever the thread inherited.
    case normal
    /// A higher nice value, 1 (a little behind) to 19 (behind everything at nice 0).
    case nice(Int32)
    /// `SCHED_BATCH`: the same share of the CPU, but never preempts another thread on waking.
    case batch
    /// `SCHED_IDLE`: runs only when nothing else wants the CPU (a little like nice 19).
    case idle

    /// `normal`, `nice:N`, `batch` or `idle`.
    public init?(_ text: String) {
        switch text {
        case "normal": self = .normal
        case "batch": self = .batch
        case "idle": self = .idle
        default:
            guard text.hasPrefix("nice:"), let value = Int32(text.dropFirst(5)), (1...19).contains(value) else { return nil }
            self = .nice(value)
        }
    }

    public var description: String {
        switch self {
        case .normal: return "normal"
        case .nice(let value): return "nice:\(value)"
        case .batch: return "batch"
        case .idle: return "idle"
        }
    }

    /// The values `init?(_:)` accepts, for help and error messages.
    public static let syntax = "normal, nice:N (1-19), batch or idle"

    /// Applies to the calling thread; true when the thread has it now. Cheap enough to call at
    /// the start of every operation: a thread that already has it is left alone.
    @discardableResult
    public func applyToCurrentThread() -> Bool {
        #if os(Linux)
        switch self {
        case .normal:
            return true
        case .nice(let value):
            // `PRIO_PROCESS` with 0 names the calling thread on Linux, not the whole process.
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            errno = 0
            let current = getpriority(which, 0)
            if errno == 0 && current >= value { return true }
            return setpriority(which, 0, value) == 0
        case .batch, .idle:
            let policy = self == .batch ? Self.schedBatch : Self.schedIdle
            if sched_getscheduler(0) == policy { return true }
            var parameters = sched_param()
            parameters.sched_priority = 0
            return sched_setscheduler(0, policy, &parameters) == 0
        }
        #else
        return self == .normal
        #endif
    }

    /// Linux's policy numbers (`<linux/sched.h>`; Glibc's Swift module does not export them).
    static let schedBatch: Int32 = 3
    static let schedIdle: Int32 = 5
}
