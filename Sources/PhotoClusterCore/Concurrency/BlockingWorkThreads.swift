import Foundation

/// Threads of their own for work that blocks in the kernel, such as file writes that end in
/// `fsync`. libdispatch on Linux sizes its pool to the cores and cannot tell a thread blocked
/// in a system call from a busy one, so blocking work on an `OperationQueue` takes a slot the
/// photo pipeline needs: on one core, every `fsync` left the core idle.
///
/// Jobs start in submission order, each on the first free thread; threads are started as jobs
/// need them, up to `limit`. With `stuckAfter`, a thread whose job has run longer than that (a
/// write to a file system that stopped answering, which nothing can interrupt) no longer counts
/// against `limit`: another is started beside it, up to `maxThreads` in all, so one stuck
/// directory does not hold up writes everywhere else. A thread past `limit` ends once it is idle.
///
/// The condition's lock guards the variables below it; the threads wait on it (and `stop`, for
/// the threads to end), so a new job wakes exactly one of them.
public final class BlockingWorkThreads: @unchecked Sendable {
    private let name: String
    private let limit: Int
    private let stuckAfter: TimeInterval?
    private let maxThreads: Int
    private let priority: ThreadPriority
    private let condition = NSCondition()
    /// Jobs not started, from `head` on: taking one is O(1) however many wait (`removeFirst`
    /// moved them all, under the lock `submit` needs).
    private var pending: [() -> Void] = []
    private var head = 0
    private var threads = 0
    private var idleThreads = 0
    private var stopping = false
    private var threadsStarted = 0
    /// When each busy thread (by number) started its current job.
    private var busySince: [Int: MonotonicInstant] = [:]
    /// Entered per job submitted and left when it has run (`waitUntilIdle`).
    private let unfinishedJobs = DispatchGroup()

    /// `priority`: how the threads compete for the CPU (set as each starts).
    public init(name: String, limit: Int, stuckAfter: TimeInterval? = nil, maxThreads: Int? = nil, priority: ThreadPriority = .normal) {
        self.name = name
        self.limit = max(1, limit)
        self.stuckAfter = stuckAfter
        self.maxThreads = max(self.limit, maxThreads ?? self.limit)
        self.priority = priority
    }

    /// Runs `body` on one of the threads. After `stop()` it runs on the caller's thread.
    public func submit(_ body: @escaping () -> Void) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            return body()
        }
        unfinishedJobs.enter()
        pending.append(body)
        if idleThreads > 0 {
            condition.signal()
        } else {
            startThreadsIfNeeded()
        }
        condition.unlock()
    }

    /// Starts threads for waiting jobs when the threads there are are stuck (nothing else would:
    /// a stuck thread never asks for work again). Call it now and then, say once a second.
    public func replaceStuckThreads() {
        condition.lock()
        if !stopping && idleThreads == 0 { startThreadsIfNeeded() }
        condition.unlock()
    }

    /// Threads running a job for longer than `stuckAfter` now.
    public var stuckThreads: Int {
        condition.lock()
        defer { condition.unlock() }
        return stuckCount(now: .now)
    }

    /// Blocks until every job submitted so far has finished.
    public func waitUntilIdle() {
        unfinishedJobs.wait()
    }

    /// Lets the jobs already submitted finish, then ends the threads. Stuck threads are not
    /// waited for: nothing can make them finish.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while threads > stuckCount(now: .now) {
            _ = condition.wait(until: Date().addingTimeInterval(0.05))
        }
        condition.unlock()
    }

    // MARK: - Under the lock

    private func stuckCount(now: MonotonicInstant) -> Int {
        guard let stuckAfter else { return 0 }
        return busySince.values.filter { now.seconds(since: $0) > stuckAfter }.count
    }

    /// One new thread per waiting job, while the threads that are not stuck are fewer than
    /// `limit` and all of them fewer than `maxThreads`.
    private func startThreadsIfNeeded() {
        let stuck = stuckCount(now: .now)
        var starting = 0
        while starting < pending.count - head && threads - stuck < limit && threads < maxThreads {
            threads += 1
            starting += 1
            threadsStarted += 1
            let thread = Thread { [self, number = threadsStarted] in
                // A name given before start() is lost on Linux (see EventLoopThread).
                Thread.current.name = "\(name) \(number)"
                priority.applyToCurrentThread()
                work(number)
            }
            thread.start()
        }
    }

    private func work(_ number: Int) {
        condition.lock()
        while true {
            if head == pending.count {
                // Stopping, or past the limit (started beside stuck ones): this thread ends.
                if stopping || threads > limit { break }
                idleThreads += 1
                condition.wait()
                idleThreads -= 1
                continue
            }
            let job = pending[head]
            pending[head] = {}
            head += 1
            if head == pending.count {
                pending.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024 && head * 2 > pending.count {
                pending.removeFirst(head)
                head = 0
            }
            busySince[number] = .now
            condition.unlock()
            job()
            unfinishedJobs.leave()
            condition.lock()
            busySince.removeValue(forKey: number)
        }
        threads -= 1
        condition.broadcast()
        condition.unlock()
    }
}
