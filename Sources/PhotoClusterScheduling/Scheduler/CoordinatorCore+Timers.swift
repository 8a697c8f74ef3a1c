import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// The core's timers: liveness and heartbeats, and retry back-offs.
extension CoordinatorCore {
    /// A worker is lost when it was silent while everything workers sent had been read. After
    /// the loop was held up (a job of a million photos built), their messages wait unread, and
    /// reading them takes more than one turn: silence then proves nothing yet.
    package func heartbeatTick(messagesWaiting: Bool) {
        let deadline = settings.heartbeatInterval * Double(settings.heartbeatLiveness)
        if !messagesWaiting { workerMessagesReadAt = now }
        for worker in workers.values.sorted(by: { $0.id < $1.id }) where workerMessagesReadAt.seconds(since: worker.lastSeen) > deadline {
            count(.heartbeatMissed)
            loseWorker(worker.id, .silent(now.seconds(since: worker.lastSeen)))
        }
        var beat = Photocluster_V1_Heartbeat()
        for id in workers.keys.sorted() {
            // Every assignment up to this one was sent before this heartbeat (see `reconcile`).
            beat.assignSequence = workers[id]!.assignSequence
            sendToWorker(id, .heartbeat(beat))
        }
        resendUnacknowledgedControl()
        forgetOldLosses()
        takeBackOverdueAssignments()
        dispatch()
    }

    /// Retry back-offs are shorter than a heartbeat: released on a finer clock.
    package func releaseDueRetries() {
        var released = false
        for id in jobOrder where jobs[id]?.hasDelayedRetries == true {
            jobs[id]?.releaseDueRetries(now: now)
            released = true
        }
        if released { dispatch() }
    }
}
