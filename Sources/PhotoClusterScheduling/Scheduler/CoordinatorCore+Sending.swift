import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Messages to workers, in the order the core decided them: graphs assigned to a worker leave
/// before anything sent to it after them.
extension CoordinatorCore {
    /// Sends a message to a worker, after the graphs assigned to it so far, so it hears
    /// everything in the order it was decided. A message that cannot leave (the worker is
    /// unreachable or not reading) is dropped by the shell; the heartbeat check decides whether
    /// the worker is lost.
    package func sendToWorker(_ id: String, _ body: Photocluster_V1_CoordinatorToWorker.OneOf_Body) {
        if !graphsToSend.isEmpty, let batch = graphsToSend.removeValue(forKey: id) { send(batch, to: id) }
        emit(.sendToWorker(id, body))
    }

    /// Sends every worker the graphs assigned to it, each batch as one message. Graphs of a
    /// worker lost this turn went back to the queue with it: they go to the others at once.
    package func sendAssignedGraphs() {
        while !graphsToSend.isEmpty {
            let batches = graphsToSend
            graphsToSend.removeAll(keepingCapacity: true)
            var workerGone = false
            for (id, batch) in batches.sorted(by: { $0.key < $1.key }) where !send(batch, to: id) { workerGone = true }
            guard workerGone else { return }
            dispatch()
        }
    }

    /// One `AssignGraphs` message, numbered for `reconcile`, recorded as sent: the shell answers
    /// with `.graphsRefused` if it could not leave (see `graphsRefused`). False when the worker
    /// is gone (lost this turn: its photos went back to the queue with it).
    @discardableResult
    private func send(_ batch: GraphBatch, to id: String) -> Bool {
        guard let worker = workers[id] else { return false }
        let sequence = worker.assignSequence + 1
        emit(.sendGraphs(id, batch, sequence: sequence))
        worker.noteAssigned(batch.sent.map(\.ref), sequence: sequence, at: now)
        for (ref, attempt, epoch) in batch.sent { attemptsSent.recordSent(ref, attempt: attempt, epoch: epoch, to: id) }
        return true
    }

    /// Batches the shell could not send (`.graphsRefused`; it replaces the answer `perform` used
    /// to give the send). Their photos go back to their places at once (not after the worker is
    /// declared lost), their credit back to the worker, and the worker is sent nothing more until
    /// it is heard from: the graphs assigned to it since, which would be refused too, come back
    /// with them. Then they go to the other workers, as the send's answer let the rest of the
    /// turn do; refused at the end of a turn, they leave at once, as no other end of turn will
    /// come for them.
    func graphsRefused(_ refused: [RefusedGraphs], turnHasEnded: Bool) {
        var tookBack = false
        for refusal in refused where takeBack(refusal) { tookBack = true }
        guard tookBack else { return }
        dispatch()
        if turnHasEnded { sendAssignedGraphs() }
    }

    /// Undoes what `send` recorded, for the batch's photos that nothing has moved on since it was
    /// decided (a photo cancelled or requeued in the same turn is left as it now is), and the
    /// assignments waiting for the worker. Answers whether any photo came back.
    private func takeBack(_ refusal: RefusedGraphs) -> Bool {
        // Lost since: its photos went back to the queue with it.
        guard let worker = workers[refusal.worker] else { return false }
        var tookBack = false
        for (ref, attempt, _) in refusal.batch.sent where worker.assignedAt[ref] == refusal.sequence && worker.inFlight.contains(ref) {
            unassign(ref, attempt: attempt, from: worker)
            worker.assignedAt.removeValue(forKey: ref)
            attemptsSent.ended(ref, attempt: attempt, on: refusal.worker)
            tookBack = true
        }
        guard tookBack else { return false }
        worker.unreachable = true
        // No later batch went out: the next one takes this number, as if this one never was.
        if worker.assignSequence == refusal.sequence { worker.assignSequence -= 1 }
        for (ref, attempt, _) in graphsToSend.removeValue(forKey: refusal.worker)?.sent ?? [] where worker.inFlight.contains(ref) {
            unassign(ref, attempt: attempt, from: worker)
        }
        return true
    }

    /// A graph that did not reach the worker: the photo is queued again if it still waits for
    /// that attempt there, and the worker's credit for it comes back.
    private func unassign(_ ref: PhotoRef, attempt: UInt32, from worker: WorkerRecord) {
        if let photo = jobs[ref.job]?.photo(ref.index), photo.worker == worker.number, photo.attempts == attempt {
            jobs[ref.job]?.unassign(ref.index)
        }
        worker.refundCredit(releasing: ref)
    }
}
