import Foundation
import PhotoClusterCore

/// Base class for stages that wait on I/O: `start()` returns at once and the stage calls
/// `finish()` from a callback.
///
/// On Linux the queue only learns of a state change through `didChangeValue(forKey:)`, and it
/// re-reads the overridden property then, so the state is changed first, under the lock, and
/// announced after. `finish()` is safe to call twice and from any thread.
open class AsyncOperation: Operation, @unchecked Sendable {
    private enum State { case ready, executing, finished }

    private let state = LockedBox(State.ready)

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { state.current == .executing }
    open override var isFinished: Bool { state.current == .finished }

    public override final func start() {
        if isCancelled {
            finish()
            return
        }
        let began = state.withLock { current -> Bool in
            guard current == .ready else { return false }
            current = .executing
            return true
        }
        guard began else { return }
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    /// Starts the work; call `finish()` when it is done, failed or cancelled.
    open func execute() {
        finish()
    }

    public final func finish() {
        let wasExecuting = state.withLock { current -> Bool? in
            guard current != .finished else { return nil }
            defer { current = .finished }
            return current == .executing
        }
        guard let wasExecuting else { return }
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
        didChangeValue(forKey: "isFinished")
    }
}
