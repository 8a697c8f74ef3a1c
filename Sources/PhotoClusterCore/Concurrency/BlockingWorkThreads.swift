import Foundation

/// Threads of their own for work that blocks in the kernel, such as file writes that end in
/// `fsync`. libdispatch on Linux sizes its pool to the cores and cannot tell a thread blocked
/// in a system call from a busy one, so blocking work on an `OperationQueue` takes a slot the
/// photo pipeline needs: on one core, every `fsync` left the core idle.
///
/// Jobs start in submission order, each on the first free thread; threads are started as jobs
/// need them, up to `limit`. The condition's lock guards the five variables below it; only the
/// threads wait on it, so a new job wakes exactly one of them.
public final class BlockingWorkThreads: @unchecked Sendable {
    private let name: String
    private let limit: Int
    private let condition = NSCondition()
    /// Jobs not started, from `head` on: taking one is O(1) however many wait (`removeFirst`
    /// moved them all, under the lock `submit` needs).
    private var pending: [() -> Void] = []
    private var head = 0
    private var threads = 0
    private var idleThreads = 0
    private var stopping = false
    /// Entered per job submitted and left when it has run (`waitUntilIdle`).
    private let unfinishedJobs = DispatchGroup()
    /// Entered per thread started and left when it ends (`stop`).
    private let liveThreads = DispatchGroup()

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
        unfinishedJobs.enter()
        pending.append(body)
        if idleThreads == 0 && threads < limit {
            threads += 1
            liveThreads.enter()
            let thread = Thread { [self, index = threads] in
                // A name given before start() is lost on Linux (see EventLoopThread).
                Thread.current.name = "\(name) \(index)"
                work()
                liveThreads.leave()
            }
            thread.start()
        } else {
            condition.signal()
        }
        condition.unlock()
    }

    /// Blocks until every job submitted so far has finished.
    public func waitUntilIdle() {
        unfinishedJobs.wait()
    }

    /// Lets the jobs already submitted finish, then ends the threads.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        liveThreads.wait()
    }

    private func work() {
        condition.lock()
        while true {
            if head == pending.count {
                if stopping { break }
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
            condition.unlock()
            job()
            unfinishedJobs.leave()
            condition.lock()
        }
        threads -= 1
        condition.unlock()
    }
}
