import Foundation
import PhotoClusterCore
import PhotoClusterScheduling
import PhotoClusterStorage
import PhotoClusterTransport

/// Where a coordinator listens and how it treats failures.
public struct CoordinatorConfiguration: Sendable {
    /// ROUTER endpoint for workers, e.g. `tcp://0.0.0.0:7000` or `inproc://workers`.
    public var workerEndpoint: String
    /// ROUTER endpoint for clients, e.g. `tcp://127.0.0.1:7001`.
    public var clientEndpoint: String
    public var heartbeatInterval: TimeInterval
    /// Missed heartbeat intervals before a worker is declared lost.
    public var heartbeatLiveness: Int
    /// Tries per photo for transient failures (connection errors, timeouts, HTTP 5xx and 429).
    public var maxAttempts: UInt32
    /// Workers a photo may be lost with (their process died while it held the photo) before the
    /// photo fails as one that may crash workers (Dask's `allowed-failures`).
    public var maxWorkerLosses: UInt32
    /// First retry back-off; doubles with each attempt.
    public var retryBackoff: TimeInterval
    public var maxMessageBytes: Int64
    /// Where the SQLite journal lives; nil keeps everything in memory (embedded mode).
    public var stateDirectory: URL?
    /// The journal in a PostgreSQL database instead (`--state postgres://…`), a connection URI
    /// as libpq takes it (passwords from PGPASSWORD or ~/.pgpass); wins over `stateDirectory`.
    public var stateDatabase: String?
    /// The lease this coordinator won on that database, when several share it: its journal
    /// writes are fenced by its token, and it acts only while the lease holds.
    public var leadership: LeadershipTerm?
    /// CURVE on both endpoints, with a ZAP handler that admits only authorized keys (worker keys
    /// on the worker endpoint, client and admin keys on the client endpoint), and jobs that
    /// belong to the key that submitted them; nil: plain, and every client may act on every job.
    public var curve: CurveServerSettings?
    /// The only place jobs may write (`--output-root`): a job's output directory is relative to
    /// it, or absolute inside it. Nil: wherever the client says (the embedded cluster).
    public var outputRoot: URL?
    /// What one coordinator takes: photos and bytes per job, open jobs per client and in all.
    public var limits: CoordinatorLimits
    /// How long a write to an output directory may take (a result's file, `index.json`, making
    /// the directory) before it is given up: a file system that stopped answering fails photos
    /// with a reason instead of stopping the job.
    public var writeTimeout: TimeInterval
    /// S3 settings (the coordinator's own `AWS_*` environment), for jobs whose outputs go to S3:
    /// the coordinator writes their `index.json` there.
    public var s3: S3Configuration
    /// Shared file systems the coordinator mounts, for `index.json` of jobs with a shared directory.
    public var sharedRoots: SharedOutputRoots
    /// How many finished jobs the coordinator keeps (the last to finish; at least one): older ones are
    /// forgotten, in memory and in the journal, so neither grows with every job it has run.
    public var finishedJobsKept: Int
    /// The priority of the threads that write results: behind the loop, which must answer
    /// control and dispatch at once.
    public var writerPriority: ThreadPriority
    /// How many stage spans the task stream keeps (the dashboard's lanes, `cluster trace`); 0
    /// keeps none. A span is about 100 bytes: the default holds the last minutes of a busy
    /// cluster in about 10 MB.
    public var taskStreamSpans: Int
    /// What one worker may claim: credit, how long it may hold a photo, the largest result.
    public var workerBudgets = WorkerBudgets()
    /// What a client key without an S3 grant may do with `s3://` outputs and photos
    /// (`--s3-default-access`); nil: deny with CURVE (grants are given per key in the authorized
    /// keys), allow without (there is no key to grant anything to).
    public var s3DefaultAccess: S3DefaultAccess?

    public static let defaultTaskStreamSpans = 100_000

    /// Writers give way to the loop (and everything else at normal priority), by default, but
    /// not to the stage threads (nice 19) of workers on the same host: a photo a client is
    /// looking at is not done until its file is written (with 16 workers sharing the host,
    /// settle → first newly visible photo p99 25–40 ms at nice 5, 42–64 ms at nice 19).
    public static let defaultWriterPriority = ThreadPriority.nice(5)

    public init(
        workerEndpoint: String,
        clientEndpoint: String,
        heartbeatInterval: TimeInterval = 1,
        heartbeatLiveness: Int = 3,
        maxAttempts: UInt32 = 3,
        maxWorkerLosses: UInt32 = 3,
        retryBackoff: TimeInterval = 0.25,
        maxMessageBytes: Int64 = 256 << 20,
        stateDirectory: URL? = nil,
        curve: CurveServerSettings? = nil,
        finishedJobsKept: Int = 100,
        outputRoot: URL? = nil,
        limits: CoordinatorLimits = CoordinatorLimits(),
        writeTimeout: TimeInterval = 60,
        writerPriority: ThreadPriority = CoordinatorConfiguration.defaultWriterPriority,
        s3: S3Configuration = S3Configuration(),
        sharedRoots: SharedOutputRoots = .none,
        taskStreamSpans: Int = CoordinatorConfiguration.defaultTaskStreamSpans,
        s3DefaultAccess: S3DefaultAccess? = nil
    ) {
        self.s3DefaultAccess = s3DefaultAccess
        self.taskStreamSpans = max(0, taskStreamSpans)
        self.writerPriority = writerPriority
        self.writeTimeout = max(0.1, writeTimeout)
        self.s3 = s3
        self.sharedRoots = sharedRoots
        self.outputRoot = outputRoot
        self.limits = limits
        self.finishedJobsKept = max(1, finishedJobsKept)
        self.curve = curve
        self.stateDirectory = stateDirectory
        self.workerEndpoint = workerEndpoint
        self.clientEndpoint = clientEndpoint
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatLiveness = heartbeatLiveness
        self.maxAttempts = maxAttempts
        self.maxWorkerLosses = max(1, maxWorkerLosses)
        self.retryBackoff = retryBackoff
        self.maxMessageBytes = maxMessageBytes
    }
}
