import PhotoClusterCore
import PhotoClusterProto

/// One worker process of the simulation, as the coordinator sees it through its messages: it
/// registers, grants credit, runs the graphs it is sent for a simulated time, reports, and beats.
/// Its slot outlives its processes: a restart is a new incarnation in the same slot (under the
/// same id or a new one).
struct SimulatedWorker {
    enum Process: Equatable {
        case running
        /// Stopped (SIGSTOP) until then: it reads and sends nothing meanwhile.
        case paused(until: Int64)
        case dead
    }

    struct HeldPhoto {
        let job: String
        let index: UInt32
        var attempt: UInt32
        let url: String
        /// Its download was reported: the next step ends it.
        var progressed = false
    }

    var id: String
    var incarnation = 0
    let concurrency: Int
    var process = Process.dead
    /// The connection its messages travel on; 0 when it has none (dead, or timed out while stopped).
    var connection = 0
    var held: [HeldPhoto] = []
    /// Credit granted and not yet spent by the coordinator, as this worker counts it.
    var outstandingCredit = 0
    var lastSequence: UInt64 = 0
    var appliedEpoch: [String: UInt64] = [:]
    var suspendedJobs: Set<String> = []
    /// Messages that reached it while it was stopped, read when it resumes (if its connection lived).
    var inbox: [(connection: Int, body: Photocluster_V1_CoordinatorToWorker.OneOf_Body)] = []

    init(id: String, concurrency: Int) {
        self.id = id
        self.concurrency = concurrency
    }

    var window: Int { CreditWindow.graphs(concurrency: concurrency) }
    var incarnationName: String { "\(id)-\(incarnation)" }

    var heldRefs: [Photocluster_V1_DropStaleWork.PhotoRef] {
        held.map { photo in .with { $0.jobID = photo.job; $0.photoIndex = photo.index } }
    }

    func holds(_ job: String, _ index: UInt32) -> Bool { held.contains { $0.job == job && $0.index == index } }

    /// Credit to grant so that what it holds and what it was granted fill its window.
    mutating func topUp() -> Int {
        let grant = window - held.count - outstandingCredit
        guard grant > 0 else { return 0 }
        outstandingCredit += grant
        return grant
    }

    /// A new process in this slot: it holds nothing and knows nothing.
    mutating func start(connection: Int) {
        incarnation += 1
        process = .running
        self.connection = connection
        held = []
        outstandingCredit = 0
        lastSequence = 0
        appliedEpoch = [:]
        suspendedJobs = []
        inbox = []
    }
}
