import Foundation
import Logging
import PhotoClusterProto
import PhotoClusterTransport

/// What leaves the node: messages to workers and clients, the journal's commits, log lines.
extension CoordinatorNode {
    /// Messages a worker reads in one turn of the loop, at most.
    static let workerMessagesPerTurn = 256

    /// Sends an encoded message to a worker; whether it left.
    func send(encoded message: Data, to id: String) -> Bool {
        guard let route = workerRoute(id) else { return false }
        do {
            try workerSocket.send([route, message], dontWait: true)
            return true
        } catch {
            return false
        }
    }

    /// Sends to a client after whatever waits for it; a connection that is full keeps the
    /// message in `clientOutbox` (see there) instead of losing it.
    func sendToClient(_ identity: Data, requestID: UInt64 = 0, _ body: Photocluster_V1_CoordinatorToClient.OneOf_Body) {
        var message = Photocluster_V1_CoordinatorToClient()
        message.requestID = requestID
        message.body = body
        sendToClient(identity, encoded: Envelope.encode(message))
    }

    /// Sends an encoded `CoordinatorToClient`, as `sendToClient(_:requestID:_:)` does: one
    /// encoding serves every client an event goes to.
    func sendToClient(_ identity: Data, encoded: Data) {
        if !clientOutbox.send([identity, encoded], to: identity, via: deliverToClient) {
            unsubscribe(identity)
            log(.warning, "a client stopped reading: \(ClientOutbox.limit) messages waited for it; it no longer hears about its jobs (it can watch them again)")
        }
    }

    func flushClientOutbox() {
        if !clientOutbox.isEmpty { clientOutbox.flush(via: deliverToClient) }
    }

    private func deliverToClient(_ frames: [Data]) -> ClientOutbox.Delivery {
        // Clients hear only what the journal holds: while this turn's writes wait for their
        // commit, messages wait in the outbox (sent when the turn ends, after the commit).
        if journal?.database.batchIsOpen == true { return .full }
        if let local = localClients[frames[0]] {
            local.deliver(frames[1])
            return .sent
        }
        do {
            try clientSocket.send(frames, dontWait: true)
            return .sent
        } catch let error as ZMQError where error.isWouldBlock {
            return .full
        } catch {
            return .gone
        }
    }

    /// Writes to the journal; a failure is logged (the job goes on in memory). A turn's writes
    /// share one transaction, committed as the turn ends (`commitJournal`): one commit for
    /// the hundreds of batches of settled photos a busy turn reads, instead of one each.
    func journaling(_ what: @autoclosure () -> String, _ body: (Journal) throws -> Void) {
        guard let journal else { return }
        do {
            try journal.database.beginBatch()
            try body(journal)
        } catch {
            noteJournalFailure(error)
            log(.error, "cannot record \(what()): \(error); check the disk or database holding --state")
        }
    }

    /// Commits the turn's journal writes, before anyone hears of them.
    func commitJournal() {
        guard let journal, journal.database.batchIsOpen else { return }
        do {
            try journal.database.commitBatch()
        } catch {
            noteJournalFailure(error)
            log(.error, "cannot record this turn's changes: \(error); check the disk or database holding --state")
        }
    }

    /// Logs one line with whatever of job, photo and worker it concerns as metadata.
    func log(_ message: String, job: String? = nil, photo: UInt32? = nil, worker: String? = nil) {
        log(.info, message, job: job, photo: photo, worker: worker)
    }

    func log(_ level: Logger.Level, _ message: String, job: String? = nil, photo: UInt32? = nil, worker: String? = nil) {
        var metadata: Logger.Metadata = [:]
        if let job { metadata["job"] = "\(job)" }
        if let photo { metadata["photo"] = "\(photo)" }
        if let worker { metadata["worker"] = "\(worker)" }
        logger.log(level: level, "\(message)", metadata: metadata.isEmpty ? nil : metadata)
    }
}
