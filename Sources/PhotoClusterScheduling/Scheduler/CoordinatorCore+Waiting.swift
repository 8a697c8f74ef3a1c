import Foundation
import PhotoClusterCore

/// Why a job's photos wait although workers are connected, for its status (`JobSummary.waiting`).
extension CoordinatorCore {
    /// Nil when no queued photo waits for a reason the core knows: photos that need a newer
    /// worker protocol than any connected worker that takes work speaks (`ProtocolNeeds`). With
    /// no such worker connected every photo waits alike, and that is no reason of the job's.
    /// Walks the job's queue only while some of its photos need more than the workers speak.
    package func waitingReason(of job: Job) -> String? {
        guard !job.isFinished, job.neededProtocols.highest > 0 else { return nil }
        guard let newest = workers.values.lazy.filter({ $0.draining == nil }).map(\.protocolVersion).max(),
            newest < UInt32(job.neededProtocols.highest)
        else { return nil }
        let waiting = job.pendingPhotos.filter { UInt32($0.neededProtocol) > newest }
        guard let need = waiting.map(\.neededProtocol).max() else { return nil }
        return ProtocolNeeds.waitingReason(photos: waiting.count, need: UInt32(need), newestConnected: newest)
    }
}
