import Foundation

/// What the coordinator knows of one connected worker.
struct WorkerRecord {
    /// The worker's ZeroMQ routing identity, which is also its id.
    let id: String
    let host: String
    let concurrency: UInt32
    let filters: Set<String>
    /// Graphs the worker said it can still take.
    var credits: Int = 0
    var lastSeen: Date
    /// Photos it holds: (job, photo index).
    var inFlight: Set<PhotoRef> = []
    var completed: UInt64 = 0

    func canRun(_ filterNames: Set<String>) -> Bool { filterNames.isSubset(of: filters) }
}

struct PhotoRef: Hashable {
    let job: String
    let index: UInt32
}
