/// Which worker each attempt of a photo was sent to, from the moment it is sent until its
/// outcome comes back or the photo settles. A worker's report about a photo is believed only
/// when the ledger says that worker was sent that attempt (see `admitReport`), so a worker
/// cannot settle, fail or write photos it was never given.
///
/// A value type with no I/O, owned by the coordinator's loop thread. It holds only attempts
/// still out, so it stays as small as the work in flight.
struct AttemptLedger {
    private var sent: [PhotoRef: [(attempt: UInt32, worker: String)]] = [:]

    /// `worker` was sent attempt `attempt` of the photo.
    mutating func recordSent(_ ref: PhotoRef, attempt: UInt32, to worker: String) {
        sent[ref, default: []].append((attempt, worker))
    }

    /// Whether `worker` holds attempt `attempt` of the photo (0: any attempt, for reports of
    /// workers that do not say which).
    func wasSent(_ ref: PhotoRef, attempt: UInt32, to worker: String) -> Bool {
        sent[ref]?.contains { $0.worker == worker && (attempt == 0 || $0.attempt == attempt) } ?? false
    }

    /// The attempt's outcome came back: nothing more is believed about it.
    mutating func ended(_ ref: PhotoRef, attempt: UInt32, on worker: String) {
        guard var attempts = sent[ref] else { return }
        attempts.removeAll { $0.worker == worker && $0.attempt == attempt }
        sent[ref] = attempts.isEmpty ? nil : attempts
    }

    /// The photo settled: its reports are ignored from now on anyway.
    mutating func forget(_ ref: PhotoRef) {
        sent.removeValue(forKey: ref)
    }

    /// The job is forgotten.
    mutating func forget(job: String) {
        sent = sent.filter { $0.key.job != job }
    }

    var count: Int { sent.count }
}
