import CCurlShim
import Foundation

/// The body of the engine thread: drives the multi handle and completes transfers.
///
/// `@unchecked Sendable` invariant: it is handed to the engine thread once and used only there
/// (`multi` and the running table are that thread's); other threads reach it only via `inbox`.
final class EngineLoop: @unchecked Sendable {
    private let multi: OpaquePointer
    private let inbox: Inbox
    private let limits: DownloadLimits
    /// Transfers added to the multi handle, by their C pointer. Engine thread only.
    private var running: [OpaquePointer: Transfer] = [:]

    /// Upper bound on one wait; curl shortens it for its own timers, wakeups cut it short.
    private static let pollMilliseconds: Int32 = 1000

    init(multi: OpaquePointer, inbox: Inbox, limits: DownloadLimits) {
        self.multi = multi
        self.inbox = inbox
        self.limits = limits
    }

    func run() {
        while true {
            let (commands, closing) = inbox.take()
            for command in commands { apply(command) }
            if closing { break }
            if !running.isEmpty {
                _ = pc_multi_perform(multi)
                while let raw = pc_multi_next_done(multi) {
                    if let transfer = running.removeValue(forKey: raw) { complete(transfer) }
                }
            }
            pc_multi_poll(multi, Self.pollMilliseconds)
        }
        let leftovers = running.values
        running.removeAll()
        for transfer in leftovers {
            pc_multi_abort(multi, transfer.raw)
            complete(transfer)
        }
        pc_multi_free(multi)
    }

    private func apply(_ command: Inbox.Command) {
        switch command {
        case .start(let transfer):
            if pc_multi_add(multi, transfer.raw) == 0 {
                running[transfer.raw] = transfer
            } else {
                complete(transfer)
            }
        case .reject(let report):
            inbox.finishedOne()
            report()
        case .cancel(let transfer):
            // Absent means it already completed; the cancel then has nothing to do.
            guard running.removeValue(forKey: transfer.raw) != nil else { return }
            pc_multi_abort(multi, transfer.raw)
            complete(transfer)
        }
    }

    private func complete(_ transfer: Transfer) {
        inbox.finishedOne()
        transfer.complete(limits: limits)
    }
}
