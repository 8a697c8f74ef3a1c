import Foundation
import PhotoClusterProto
import PhotoClusterScheduling

/// Job events for the clients that submitted or watch a job, each told as much as it asked for.
extension CoordinatorNode {
    /// Sends a job event to the job's clients; a photo's status only to those that asked for
    /// every photo. The counts go through `publishProgress`.
    func publish(_ jobID: String, _ body: Photocluster_V1_JobEvent.OneOf_Body) {
        guard let audience = subscribers[jobID] else { return }
        if case .photo = body {
            send(body, of: jobID, to: audience.everyPhoto)
        } else {
            send(body, of: jobID, to: audience.all)
        }
    }

    /// A photo's status, to the clients that asked for every photo (made only if there is one).
    func publishStatus(of photo: PhotoRecord, in jobID: String) {
        guard subscribers[jobID]?.everyPhoto.isEmpty == false, let job = jobs[jobID] else { return }
        publish(jobID, .photo(job.status(of: photo)))
    }

    /// The job's counts after a photo settled: at once to every-photo clients, paced for
    /// counts-only ones.
    func publishProgress(_ progress: Photocluster_V1_JobProgress, of jobID: String) {
        guard let recipients = subscribers[jobID]?.countsRecipients(now: ProcessInfo.processInfo.systemUptime, final: progress.done == progress.total)
        else { return }
        if subscribers[jobID]?.countsWaiting == true { jobsWithWaitingCounts.insert(jobID) }
        send(.progress(progress), of: jobID, to: recipients)
    }

    /// The loop's timer: counts that waited out their interval go to counts-only clients.
    func sendWaitingCounts() {
        guard !jobsWithWaitingCounts.isEmpty else { return }
        let now = ProcessInfo.processInfo.systemUptime
        for jobID in jobsWithWaitingCounts {
            let due = subscribers[jobID]?.takeWaitingCounts(now: now) ?? []
            if subscribers[jobID]?.countsWaiting != true { jobsWithWaitingCounts.remove(jobID) }
            if !due.isEmpty, let progress = jobs[jobID]?.progress { send(.progress(progress), of: jobID, to: due) }
        }
    }

    private func send(_ body: Photocluster_V1_JobEvent.OneOf_Body, of jobID: String, to clients: Set<Data>) {
        guard !clients.isEmpty else { return }
        var message = Photocluster_V1_CoordinatorToClient()
        message.event.jobID = jobID
        message.event.body = body
        let encoded = Envelope.encode(message)
        for client in clients { sendToClient(client, encoded: encoded) }
    }

    /// The finished job's summary, with every photo, to `clients` (see `Job.encodedFinishedEvent`).
    func sendFinishedSummary(of job: Job, to clients: Set<Data>) {
        guard !clients.isEmpty else { return }
        let jobID = job.id
        // Encoded once for each detail asked for: for a large job it is the biggest message sent.
        let byDetail = Dictionary(grouping: clients) { subscribers[jobID]?.summaryDetail(of: $0) ?? .everyPhoto }
        for (detail, recipients) in byDetail {
            let encoded = job.encodedFinishedEvent(detail: detail, at: Date())
            for client in recipients { sendToClient(client, encoded: encoded) }
        }
        subscribers[jobID]?.noteTheEnd(sentTo: clients)
    }
}
