import Foundation
import PhotoClusterCore
import Synchronization

/// Whether a job's stages may start, set by the worker's loop without a lock.
///
/// A suspension reaches the job's `OperationQueue`s through the engine's queue thread, a moment
/// later (their locks are shared with the low-priority stage threads, and the loop must never
/// wait for one of those: see `CancellationFlag`). The gate makes the suspension hold from the
/// moment the loop acknowledges it: a decode, filter or encode that starts while it is closed
/// waits here until the job resumes or the photo is cancelled.
final class JobGate: Sendable {
    private let closed = Atomic<Bool>(false)
    /// Stages waiting here now (for tests and diagnostics: a stage held by the gate, not running).
    private let waiting = Atomic<Int>(0)
    /// Waiters sleep on it; the queue thread wakes them when the gate opens or photos are cancelled.
    private let condition = NSCondition()

    /// A gate that is never closed, for graphs that never run.
    static let alwaysOpen = JobGate()

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    var waiters: Int { waiting.load(ordering: .acquiring) }

    func set(closed value: Bool) { closed.store(value, ordering: .releasing) }

    /// Wakes the stages waiting here to look again (the gate opened, or their photo was cancelled).
    func wakeWaiters() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once the gate is open or `stop` is true. The timed wait is a safety net only.
    func waitWhileClosed(unless stop: () -> Bool) {
        guard isClosed, !stop() else { return }
        waiting.add(1, ordering: .releasing)
        condition.lock()
        defer {
            condition.unlock()
            waiting.subtract(1, ordering: .releasing)
        }
        while isClosed && !stop() {
            _ = condition.wait(until: Date().addingTimeInterval(0.05))
        }
    }
}

/// The engine's gates, one per job it has heard of, until the job is closed. Behind a lock held
/// only for a lookup (the loop and, for successors, stage threads take it).
final class JobGates: @unchecked Sendable {
    private let table = LockedBox<(gates: [String: JobGate], shutDown: Bool)>(([:], false))

    /// The job's gate, made (open) if the job is new.
    func gate(for job: String) -> JobGate {
        table.withLock { Self.gate(for: job, in: &$0.gates) }
    }

    /// Closes or opens a job's gate; after `shutDown`, gates only open. Answers the gate if
    /// this changed it.
    func set(_ job: String, closed: Bool) -> JobGate? {
        table.withLock { table in
            guard !(closed && table.shutDown) else { return nil }
            let gate = Self.gate(for: job, in: &table.gates)
            guard gate.isClosed != closed else { return nil }
            gate.set(closed: closed)
            return gate
        }
    }

    /// Forgets a closed job (its gate is opened first).
    func remove(_ job: String) {
        table.withLock { $0.gates.removeValue(forKey: job) }?.set(closed: false)
    }

    var jobs: Set<String> { table.withLock { Set($0.gates.keys) } }

    /// Stages waiting at a job's gate now (0 for a job without one).
    func waiters(of job: String) -> Int { table.withLock { $0.gates[job] }?.waiters ?? 0 }

    private static func gate(for job: String, in gates: inout [String: JobGate]) -> JobGate {
        if let gate = gates[job] { return gate }
        let gate = JobGate()
        gates[job] = gate
        return gate
    }

    /// Opens every gate for good and answers them (so their waiters can be woken).
    func shutDown() -> [JobGate] {
        table.withLock { table in
            table.shutDown = true
            for gate in table.gates.values { gate.set(closed: false) }
            return Array(table.gates.values)
        }
    }
}
