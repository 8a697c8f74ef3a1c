import Foundation

/// Blocks until SIGINT or SIGTERM arrives, so long-running roles can shut down cleanly. Once one
/// has arrived, both signals act as usual again: a second Ctrl-C or SIGTERM ends a shutdown that
/// hangs.
enum SignalWaiter {
    static func waitForTermination() async -> Int32 {
        await withCheckedContinuation { continuation in
            onTermination { continuation.resume(returning: $0) }
        }
    }

    /// Calls `handler` once, on another thread, with the first SIGINT or SIGTERM.
    static func onTermination(_ handler: @escaping @Sendable (Int32) -> Void) {
        let fired = NSLock()
        var resumed = false
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                fired.lock()
                defer { fired.unlock() }
                guard !resumed else { return }
                resumed = true
                for source in sources { source.cancel() }
                signal(SIGINT, SIG_DFL)
                signal(SIGTERM, SIG_DFL)
                handler(signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }
}
