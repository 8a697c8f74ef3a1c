import Foundation
import PhotoClusterCore

/// A thread that owns ZeroMQ sockets and runs a poll loop over them.
///
/// Other threads never touch the sockets: they `post` closures, which run on the loop thread
/// between polls. That single owner is what keeps the non-thread-safe sockets safe.
public final class EventLoopThread: @unchecked Sendable {
    public typealias Tick = () -> Void

    private let wakeup = WakeupSignal()
    /// Without a lock: low-priority threads post too (see `MPSCQueue`).
    private let inbox = MPSCQueue<() -> Void>()
    private let stopRequested = LockedBox(false)
    private let finished = DispatchSemaphore(value: 0)
    private let name: String
    private var thread: Thread?

    // Loop-thread state.
    private var sources: [(ZMQSocket, (ZMQSocket) -> Void)] = []
    /// Changes with every `watch` and `unwatch`, so the poller is rebuilt.
    private var sourcesVersion = 0
    /// Due times on the monotonic clock: a wall clock stepped back must not stop the timers.
    private var timers: [(interval: TimeInterval, next: MonotonicInstant, body: Tick)] = []
    private var turnEnds: [Tick] = []
    /// Checked before each turn (see `turnsOnlyWhile`); set before `start()`.
    private var gate: (() -> Bool)?
    /// Set on the loop thread when the gate ended the loop, read by its cleanup.
    public private(set) var endedByGate = false

    public init(name: String) {
        self.name = name
    }

    /// Adds a socket whose `onReadable` drains it; sockets are read in the order they were added,
    /// before the closures posted since the last turn. Call before `start()` or from the loop thread.
    public func watch(_ socket: ZMQSocket, onReadable: @escaping (ZMQSocket) -> Void) {
        sources.append((socket, onReadable))
        sourcesVersion += 1
    }

    /// Stops watching `socket` (before closing it). Call from the loop thread.
    public func unwatch(_ socket: ZMQSocket) {
        sources.removeAll { $0.0 === socket }
        sourcesVersion += 1
    }

    /// Runs `body` every `interval` seconds on the loop thread. Call before `start()` or from the loop thread.
    public func every(_ interval: TimeInterval, _ body: @escaping Tick) {
        timers.append((interval, MonotonicInstant.now.adding(seconds: interval), body))
    }

    /// Runs `body` at the end of every turn of the loop (after the posted work, the readable
    /// sockets and the due timers): the place to send what a turn gathered, so a burst goes out
    /// as one message and a lone event is not held back. Call before `start()` or from the loop thread.
    public func atEndOfEachTurn(_ body: @escaping Tick) {
        turnEnds.append(body)
    }

    /// Makes every turn ask `mayRun` first, before it reads a socket, runs posted work or a
    /// timer: false ends the loop there, with nothing of that turn (nor the usual last turn
    /// after `stop()`) done. A coordinator whose lease may have lapsed while it was frozen must
    /// not act on anything it reads once it wakes. Call before `start()`.
    public func turnsOnlyWhile(_ mayRun: @escaping () -> Bool) {
        gate = mayRun
    }

    /// Runs `body` on the loop thread soon.
    public func post(_ body: @escaping () -> Void) {
        inbox.put(body)
        wakeup.signal()
    }

    /// Starts the loop. `cleanup` runs on the loop thread after it stops (close sockets there).
    public func start(cleanup: @escaping () -> Void = {}) {
        // The thread names itself once start() has returned: on Linux a name given earlier is
        // lost. The kernel keeps 15 bytes, which `top -H` and /proc/PID/task/*/comm show.
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            started.wait()
            Thread.current.name = name
            run()
            cleanup()
            finished.signal()
        }
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
        started.signal()
    }

    /// Asks the loop to stop and waits until it has; what was posted before runs first.
    public func stop() {
        let alreadyStopping = stopRequested.withLock { requested -> Bool in
            defer { requested = true }
            return requested
        }
        guard !alreadyStopping, thread != nil else { return }
        wakeup.signal()
        finished.wait()
    }

    private func run() {
        var poller = ZMQPoller([.fileDescriptor(wakeup.fileDescriptor)] + sources.map { .socket($0.0) })
        var watchedVersion = sourcesVersion
        while !stopRequested.current {
            if sourcesVersion != watchedVersion {
                poller = ZMQPoller([.fileDescriptor(wakeup.fileDescriptor)] + sources.map { .socket($0.0) })
                watchedVersion = sourcesVersion
            }
            let readable: [Bool]
            do {
                readable = try poller.poll(timeoutMs: nextTimerDelayMs())
            } catch {
                if (error as? ZMQError)?.isTerminated == true { return }
                continue
            }
            if let gate, !gate() {
                endedByGate = true
                return
            }
            if readable[0] { wakeup.drain() }
            // Sockets before posted work: a control message read in the same turn as a burst
            // of posted outcomes is handled (and answered) first.
            for (index, source) in sources.enumerated() where readable[index + 1] {
                // A handler that changed what is watched ends this pass: the rest may be closed.
                guard sourcesVersion == watchedVersion else { break }
                source.1(source.0)
            }
            runPosted()
            runDueTimers()
            for body in turnEnds { body() }
        }
        // Work posted before `stop()` still runs, and what it gathered is sent: a worker's
        // goodbye is posted just before it stops its loop, and must not be left in the inbox.
        runPosted()
        for body in turnEnds { body() }
    }

    private func runPosted() {
        for body in inbox.takeAll() { body() }
    }

    private func nextTimerDelayMs() -> Int {
        guard let next = timers.map(\.next).min() else { return 1000 }
        return max(0, min(1000, Int(next.seconds(since: .now) * 1000) + 1))
    }

    private func runDueTimers() {
        let now = MonotonicInstant.now
        for index in timers.indices where timers[index].next <= now {
            timers[index].next = now.adding(seconds: timers[index].interval)
            timers[index].body()
        }
    }
}
