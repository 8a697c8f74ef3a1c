import Foundation
import Synchronization

/// One thread of its own that runs the closures handed to it, one at a time, in order.
///
/// Threads of any priority hand work over, the lowest included, so handing over takes no lock
/// (see `MPSCQueue`) and wakes the thread through a semaphore. `submit(wake: false)` lets a
/// caller that holds a lock of its own hand work over under it and `wake()` the thread after
/// letting go: a sleeper with a higher priority than the waker runs at once, and had the waker
/// still held its lock, it would be preempted holding it.
///
/// The thread starts in `init` and inherits the priority of the thread that made the object.
public final class SerialThread: @unchecked Sendable {
    private let pending = MPSCQueue<() -> Void>()
    private let stopped = Atomic<Bool>(false)
    private let wakeup = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    public init(name: String) {
        let thread = Thread { [self] in
            // A name given before start() is lost on Linux (see EventLoopThread).
            Thread.current.name = name
            run()
            finished.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Runs `body` on the thread after everything handed over before it; once `stop()` has
    /// been called, on the caller's thread instead. `wake: false` leaves the thread asleep
    /// until `wake()` (or the next `submit`).
    public func submit(wake: Bool = true, _ body: @escaping () -> Void) {
        guard !stopped.load(ordering: .acquiring) else { return body() }
        pending.put(body)
        // Stopped meanwhile: the thread may have ended without seeing it, so run what is left here.
        if stopped.load(ordering: .acquiring) { return runPending() }
        if wake { wakeup.signal() }
    }

    public func wake() { wakeup.signal() }

    /// Runs `body` on the thread after everything handed over before it, and waits for it.
    public func sync<T>(_ body: @escaping () -> T) -> T {
        let result = LockedBox<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        submit {
            result.withLock { $0 = body() }
            done.signal()
        }
        done.wait()
        return result.current!
    }

    /// Runs what was handed over before, then ends the thread; work handed over from then on
    /// runs on its caller's thread.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeup.signal()
        finished.wait()
        runPending()
    }

    private func run() {
        while true {
            wakeup.wait()
            runPending()
            if stopped.load(ordering: .acquiring) { return }
        }
    }

    private func runPending() {
        for body in pending.takeAll() { body() }
    }
}
