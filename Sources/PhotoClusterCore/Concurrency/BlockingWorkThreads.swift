import Foundation

/// Threads of their own for work that blocks in the kernel, such as file writes that end in
/// `fsync`. libdispatch on Linux sizes its pool to the cores and cannot tell a thread blocked
/// in a system call from a busy one, so blocking work on an `OperationQueue` takes a slot the
/// photo pipeline needs: on one core, every `fsync` left the core idle.
///
/// Jobs start in submission order, each on the first free thread; threads are started as jobs
/// need them, up to `limit`. The condition's lock guards every stored property below it.
public final class BlockingWorkThreads: @unchecked Sendable {
    private let name: String
    private let limit: Int
    private let condition = NSCondition()
    private var pending: [() -> Void] = []
    private var threads = 0
    private var idleThreads = 0
    private var running = 0
    private var stopping = false

    public init(name: String, limit: Int) {
        self.name = name
        self.limit = max(1, limit)
    }

    /// Runs `body` on one of the threads. After `stop()` it runs on the caller's thread.
    public func submit(_ body: @escaping () -> Void) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            return body()
        }
        pending.append(body)
        if idleThreads == 0 && threads < limit {
            threads += 1
            let thread = Thread { [self, index = threads] in
                // A name given before start() is lost on Linux (see EventLoopThread).
                Thread.current.name = "\(name) \(index)"
                work()
            }
            thread.start()
        } else {
            // Not `signal()`: it might wake a caller of `waitUntilIdle()` instead of a thread.
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Blocks until every job submitted so far has finished.
    public func waitUntilIdle() {
        condition.lock()
        while !pending.isEmpty || running > 0 { condition.wait() }
        condition.unlock()
    }

    /// Lets the jobs already submitted finish, then ends the threads.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while threads > 0 { condition.wait() }
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            if pending.isEmpty {
                if stopping { break }
                idleThreads += 1
                condition.wait()
                idleThreads -= 1
                continue
            }
            let job = pending.removeFirst()
            running += 1
            condition.unlock()
            job()
            condition.lock()
            running -= 1
            if pending.isEmpty && running == 0 { condition.broadcast() }
        }
        threads -= 1
        condition.broadcast()
        condition.unlock()
    }
}
