import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterProtocol
import PhotoClusterScheduling

/// One worker process of the simulation: the real worker's protocol (`WorkerSession`: epochs,
/// control first, assignment accounting, the coordinator's settings, its hello, credit and
/// heartbeat, the coordinator's silence) with the rest simulated. `held` replaces the engine: a
/// graph runs for a simulated time and ends done or failed. The simulation's connections replace
/// the socket, and its microsecond clock the monotonic clock.
/// Its slot outlives its processes: a restart is a new incarnation in the same slot (under the
/// same id or a new one).
package struct SimulatedWorker {
    package enum Process: Equatable {
        case running
        /// Stopped (SIGSTOP) until then: it reads and sends nothing meanwhile.
        case paused(until: Int64)
        case dead
    }

    package struct HeldPhoto {
        package let job: String
        package let index: UInt32
        package var attempt: UInt32
        /// Its graph's epoch, which its outcome names.
        package var epoch: UInt64
        package let url: String
        /// Its download was reported: the next step ends it.
        package var progressed = false
    }

    package var id: String
    package var incarnation = 0
    package let concurrency: Int
    package var process = Process.dead
    /// The connection its messages travel on; 0 when it has none (dead, or timed out while stopped).
    package var connection = 0
    package var held: [HeldPhoto] = []
    package var session: WorkerSession
    package var suspendedJobs: Set<String> = []
    /// It said it is draining: graphs that reach it are handed back, and it leaves when it holds
    /// nothing or at its drain timeout.
    package var draining = false
    /// The credit it granted since its last hello, less the graphs sent to it since, as the
    /// connection carried them (not as the session counts them): what the coordinator may still
    /// send it. With what it holds, never more than its window.
    package var creditOutstanding = 0
    /// Messages that reached it while it was stopped, read when it resumes (if its connection lived).
    package var inbox: [(connection: Int, body: Photocluster_V1_CoordinatorToWorker.OneOf_Body)] = []
    /// What it said while no coordinator was connected, in order: a DEALER socket keeps what it
    /// could not send (up to its high-water mark) and delivers it to whoever it connects to next,
    /// so a restarted coordinator first reads the heartbeats and hellos of the gap.
    package var unsent: [(message: Photocluster_V1_WorkerToCoordinator, photos: [Data])] = []
    /// When it last connected afresh after the coordinator's silence (`WorkerNode`'s
    /// `lastReopened`): at most once per liveness period.
    package var lastReopened: Int64?

    package init(id: String, concurrency: Int) {
        self.id = id
        self.concurrency = concurrency
        session = Self.newSession(concurrency: concurrency)
    }

    /// What a process starts with: the real worker's defaults, and the window its concurrency gives.
    private static func newSession(concurrency: Int) -> WorkerSession {
        WorkerSession(heartbeatInterval: 1, heartbeatLiveness: 3, window: CreditWindow.graphs(concurrency: concurrency))
    }

    package var window: Int { session.credit.window }
    package var incarnationName: String { "\(id)-\(incarnation)" }

    package var heldRefs: [Photocluster_V1_DropStaleWork.PhotoRef] {
        held.map { photo in .with { $0.jobID = photo.job; $0.photoIndex = photo.index } }
    }

    package func holds(_ job: String, _ index: UInt32) -> Bool { held.contains { $0.job == job && $0.index == index } }

    /// Removes the held photos `matching` says, answering them (their graphs end cancelled).
    package mutating func remove(where matching: (HeldPhoto) -> Bool) -> [HeldPhoto] {
        let removed = held.filter(matching)
        held.removeAll(where: matching)
        return removed
    }

    /// A new process in this slot: it holds nothing and knows nothing.
    package mutating func start(connection: Int) {
        incarnation += 1
        process = .running
        self.connection = connection
        held = []
        session = Self.newSession(concurrency: concurrency)
        suspendedJobs = []
        draining = false
        inbox = []
        unsent = []
        lastReopened = nil
        creditOutstanding = 0
    }
}
