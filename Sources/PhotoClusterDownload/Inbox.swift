import CCurlShim
import Foundation

/// Hand-off of work from any thread to the engine thread, and the count of unfinished transfers.
///
/// `@unchecked Sendable` invariant: every mutable field is guarded by `lock`. `multi` is woken
/// only under the lock while the inbox is open; the engine thread frees it only after it has
/// taken the commands posted before `close()`, so no wakeup can reach a freed handle.
final class Inbox: @unchecked Sendable {
    enum Command {
        case start(Transfer)
        /// A transfer refused before it started: `report` tells its caller, on the engine thread.
        case reject(@Sendable () -> Void)
        case cancel(Transfer)
    }

    private let lock = NSLock()
    private let multi: OpaquePointer
    private var commands: [Command] = []
    private var closed = false
    private var unfinished = 0

    init(multi: OpaquePointer) { self.multi = multi }

    /// Queues a command and wakes the engine thread; false once the inbox is closed.
    func post(_ command: Command) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if closed { return false }
        if case .cancel = command {} else { unfinished += 1 }
        commands.append(command)
        // A non-empty queue means a wakeup is already pending.
        if commands.count == 1 { pc_multi_wakeup(multi) }
        return true
    }

    /// Everything queued so far, and whether the engine must stop afterwards.
    func take() -> (commands: [Command], closing: Bool) {
        lock.lock()
        defer { lock.unlock() }
        let taken = commands
        commands.removeAll()
        return (taken, closed)
    }

    func close() {
        lock.lock()
        defer { lock.unlock() }
        if closed { return }
        closed = true
        pc_multi_wakeup(multi)
    }

    /// Called once per finished transfer, before its completion runs.
    func finishedOne() {
        lock.lock()
        unfinished -= 1
        lock.unlock()
    }

    var unfinishedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return unfinished
    }
}
