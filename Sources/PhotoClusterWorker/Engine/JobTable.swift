/// The engine's jobs: each job's queues while it holds photos, and the jobs that are suspended
/// (remembered even while a job has no queues).
///
/// Used on the engine's queue thread, which also sets every queue's `isSuspended`, so the table
/// and the queues never disagree: suspending and resuming a job over and over, or a photo
/// admitted as its job's last one ends, cannot leave queues the table does not know or a queue
/// suspended that the table says is running.
struct JobTable {
    private(set) var queues: [String: JobQueues] = [:]
    /// Photos admitted per job that have not ended: a job's queues go when it reaches zero.
    private var photos: [String: Int] = [:]
    private(set) var suspended: Set<String> = []
    /// Set once the engine shuts down: nothing is suspended after that, or its cancelled
    /// operations would never run and the shutdown would wait for them for ever.
    private var isShutDown = false

    /// The queues a new photo of `job` runs in, counted until `release` (made if needed).
    mutating func admit(_ job: String, makeQueues: (_ suspended: Bool) -> JobQueues) -> JobQueues {
        photos[job, default: 0] += 1
        if let existing = queues[job] { return existing }
        let created = makeQueues(suspended.contains(job))
        queues[job] = created
        return created
    }

    /// A photo of `job` ended; the job's queues go with its last one.
    mutating func release(_ job: String) {
        let left = (photos[job] ?? 1) - 1
        if left > 0 {
            photos[job] = left
        } else {
            photos.removeValue(forKey: job)
            queues.removeValue(forKey: job)
        }
    }

    mutating func setSuspended(_ job: String, _ suspend: Bool) {
        guard !(suspend && isShutDown) else { return }
        if suspend { suspended.insert(job) } else { suspended.remove(job) }
        queues[job]?.setSuspended(suspend)
    }

    /// Resumes every job for good and returns the queues to wait for.
    mutating func shutDown() -> [JobQueues] {
        isShutDown = true
        for job in suspended { queues[job]?.setSuspended(false) }
        suspended.removeAll()
        return Array(queues.values)
    }
}
