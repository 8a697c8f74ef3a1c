import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Why a viewport request about a job was refused: no such job, a finished one, a range outside it.
public struct JobRequestProblem: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable { case notFound, conflict, invalid }
    public let kind: Kind
    public let message: String
    public var description: String { message }
}

/// The coordinator's state for in-process callers, answered on the loop thread.
extension CoordinatorNode {
    /// Jobs (every one when `jobID` is empty), workers, rates and recent failures.
    public func status(jobID: String = "", includePhotos: Bool = false) async -> Photocluster_V1_StatusReply {
        await onLoop { self.statusReply(for: jobID, includePhotos: includePhotos) }
    }

    /// Checks and applies a viewport request that reached the coordinator at `arrivedAt`; the
    /// problem when it cannot be applied.
    func applyViewport(_ viewport: Photocluster_V1_Viewport, to jobID: String, arrivedAt: MonotonicInstant = .now) -> JobRequestProblem? {
        guard let (finished, total) = jobs[jobID].map({ ($0.isFinished, $0.total) }) else {
            return JobRequestProblem(kind: .notFound, message: noJob(jobID))
        }
        guard !finished else { return JobRequestProblem(kind: .conflict, message: "job \(jobID) has finished") }
        guard viewport.visibleStart <= viewport.visibleEnd, Int(viewport.visibleStart) < total else {
            return JobRequestProblem(
                kind: .invalid,
                message: "visible range \(viewport.visibleStart)..\(viewport.visibleEnd) is outside the job's photos 0..\(total - 1)")
        }
        viewportInbox.hold(viewport, for: jobID, arrivedAt: arrivedAt)
        return nil
    }

    /// As a turn ends: the latest viewport of each job changed during it goes to the scheduler.
    func applyPendingViewports() {
        for (jobID, pending) in viewportInbox.takePending() {
            guard let job = jobs[jobID], !job.isFinished else { continue }
            tellCore(.viewport(job: jobID, Viewport(from: pending.viewport, count: job.total), arrivedAt: pending.arrivedAt))
        }
        let replies = viewportReplies
        viewportReplies.removeAll(keepingCapacity: false)
        for (client, requestID, requester, jobID) in replies {
            sendToClient(client, requestID: requestID, .status(statusReply(for: jobID, includePhotos: false, for: requester)))
        }
    }
}
