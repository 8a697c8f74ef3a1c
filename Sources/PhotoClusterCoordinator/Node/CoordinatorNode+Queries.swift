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
        switch core.refusal(of: viewport, for: jobID) {
        case .noJob?: return JobRequestProblem(kind: .notFound, message: noJob(jobID))
        case .finished?: return JobRequestProblem(kind: .conflict, message: "job \(jobID) has finished")
        case .outsideJob(let total)?:
            return JobRequestProblem(
                kind: .invalid, message: "visible range \(viewport.visibleStart)..\(viewport.visibleEnd) is outside the job's photos 0..\(total - 1)")
        case nil: break
        }
        viewportInbox.hold(viewport, for: jobID, arrivedAt: arrivedAt)
        return nil
    }

    /// As a turn ends: the latest viewport of each job changed during it goes to the scheduler.
    func applyPendingViewports() {
        for (jobID, pending) in viewportInbox.takePending() {
            tellCore(.viewport(job: jobID, pending.viewport, arrivedAt: pending.arrivedAt))
        }
        let replies = viewportReplies
        viewportReplies.removeAll(keepingCapacity: false)
        for (client, requestID, requester, jobID) in replies {
            sendToClient(client, requestID: requestID, .status(statusReply(for: jobID, includePhotos: false, for: requester)))
        }
    }
}
