import PhotoClusterProto

/// What a worker needs to know of a message to handle control first (see `WorkerSession`).
extension Photocluster_V1_CoordinatorToWorker {
    /// Cancels, suspensions, resumptions and priority changes: applied before anything else.
    var isControl: Bool {
        switch body {
        case .cancel, .suspend, .resume, .reprioritise, .control: return true
        default: return false
        }
    }

    /// The photos a control message cancels, if it cancels any.
    var cancelTarget: CancelTarget? {
        switch body {
        case .cancel(let cancel):
            return CancelTarget(job: cancel.jobID, epoch: cancel.epoch, photos: cancel.wholeJob ? nil : Set(cancel.photoIndices))
        case .control(let control) where !control.cancel.isEmpty:
            return CancelTarget(job: control.jobID, epoch: control.epoch, photos: Set(control.cancel))
        default:
            return nil
        }
    }
}

/// The photos of a job a cancel names (every photo when `photos` is nil), at its epoch.
struct CancelTarget {
    let job: String
    let epoch: UInt64
    let photos: Set<UInt32>?

    /// Whether `message` is a graph of one of these photos at the cancel's epoch or a newer
    /// one: handled in order, it would be running when the cancel came, and cancelled by it.
    func covers(_ message: Photocluster_V1_CoordinatorToWorker) -> Bool {
        switch message.body {
        case .assign(let assign): return covers(assign.graph)
        case .assignBatch(let batch): return batch.graphs.contains(where: covers)
        default: return false
        }
    }

    private func covers(_ graph: Photocluster_V1_PhotoGraph) -> Bool {
        graph.jobID == job && graph.epoch >= epoch && (photos?.contains(graph.photoIndex) ?? true)
    }
}
