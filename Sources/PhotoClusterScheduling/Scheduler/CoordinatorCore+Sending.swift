import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Messages to workers, in the order the core decided them: graphs assigned to a worker leave
/// before anything sent to it after them.
extension CoordinatorCore {
    /// Sends a message to a worker, after the graphs assigned to it so far, so it hears
    /// everything in the order it was decided. Whether the message left: one that did not (the
    /// worker is unreachable or not reading) is dropped; the heartbeat check decides whether the
    /// worker is lost.
    @discardableResult
    package func sendToWorker(_ id: String, _ body: Photocluster_V1_CoordinatorToWorker.OneOf_Body) -> Bool {
        if !graphsToSend.isEmpty, let batch = graphsToSend.removeValue(forKey: id) { send(batch, to: id) }
        return perform(.sendToWorker(id, body))
    }

    /// Sends every worker the graphs assigned to it, each batch as one message. Graphs a worker
    /// could not be sent are back in the queue: they go to the others at once.
    package func sendAssignedGraphs() {
        while !graphsToSend.isEmpty {
            let batches = graphsToSend
            graphsToSend.removeAll(keepingCapacity: true)
            var refused = false
            for (id, batch) in batches.sorted(by: { $0.key < $1.key }) where !send(batch, to: id) { refused = true }
            guard refused else { return }
            dispatch()
        }
    }

    /// One `AssignGraphs` message, numbered for `reconcile`. When it cannot leave, its photos go
    /// back to their places at once (not after the worker is declared lost), their credit back to
    /// the worker, and the worker is sent nothing more until it is heard from.
    @discardableResult
    private func send(_ batch: GraphBatch, to id: String) -> Bool {
        // A worker lost this turn: its photos went back to the queue with it.
        guard let worker = workers[id].map({ (number: $0.number, sequence: $0.assignSequence + 1) }) else { return false }
        let refs = batch.sent.map(\.ref)
        guard perform(.sendGraphs(id, batch, sequence: worker.sequence)) else {
            for ref in refs where jobs[ref.job]?.photo(ref.index)?.worker == worker.number { jobs[ref.job]?.unassign(ref.index) }
            workers[id]?.refundCredit(releasing: refs)
            workers[id]?.unreachable = true
            return false
        }
        workers[id]?.noteAssigned(refs, sequence: worker.sequence, at: now)
        for (ref, attempt) in batch.sent { attemptsSent.recordSent(ref, attempt: attempt, to: id) }
        return true
    }
}
