/// Which worker each attempt of a photo was sent to, and at which epoch, from the moment it is
/// sent until its outcome comes back or the photo settles. A worker's report about a photo is
/// believed only when the ledger says that worker was sent that attempt (see `admitReport`), so
/// a worker cannot settle, fail or write photos it was never given.
///
/// The epoch tells this coordinator's assignments from an earlier one's under the same attempt
/// number: attempts are journaled only when a photo settles, so a coordinator that restores a job
/// may send an attempt number that the one before it had sent to the same worker, whose outcome
/// may still be on its way. A restored job's graphs leave at a higher epoch (see `Job.restore`),
/// and a report names its graph's.
///
/// A value type with no I/O, owned by the coordinator's loop thread. It holds only attempts
/// still out, so it stays as small as the work in flight; a photo with one attempt out (the
/// usual case) costs its dictionary entry and no allocation of its own.
package struct AttemptLedger {
    package struct Sent: Equatable {
        package let attempt: UInt32
        package let epoch: UInt64
        package let worker: String
    }

    /// A photo's attempts out: the first inline, any others (a viewport's cancel, a lost worker)
    /// after it.
    private struct Attempts {
        var first: Sent
        var others: [Sent] = []
    }

    private var sent: [PhotoRef: Attempts] = [:]

    /// `worker` was sent attempt `attempt` of the photo, in a graph of epoch `epoch`.
    package mutating func recordSent(_ ref: PhotoRef, attempt: UInt32, epoch: UInt64, to worker: String) {
        let entry = Sent(attempt: attempt, epoch: epoch, worker: worker)
        if sent[ref] == nil {
            sent[ref] = Attempts(first: entry)
        } else {
            sent[ref]!.others.append(entry)
        }
    }

    /// Whether `worker` holds attempt `attempt` of the photo at `epoch` (0 for either: any, for
    /// reports of workers that do not say which).
    package func wasSent(_ ref: PhotoRef, attempt: UInt32, epoch: UInt64 = 0, to worker: String) -> Bool {
        guard let attempts = sent[ref] else { return false }
        let matches = { (entry: Sent) in
            entry.worker == worker && (attempt == 0 || entry.attempt == attempt) && (epoch == 0 || entry.epoch == epoch)
        }
        return matches(attempts.first) || attempts.others.contains(where: matches)
    }

    /// The attempt's outcome came back: nothing more is believed about it. (One coordinator sends
    /// an attempt number of a photo once, so the number alone names the entry.)
    package mutating func ended(_ ref: PhotoRef, attempt: UInt32, on worker: String) {
        guard var attempts = sent[ref] else { return }
        let isIt = { (entry: Sent) in entry.worker == worker && entry.attempt == attempt }
        if isIt(attempts.first) {
            guard !attempts.others.isEmpty else {
                sent.removeValue(forKey: ref)
                return
            }
            attempts.first = attempts.others.removeFirst()
        } else {
            attempts.others.removeAll(where: isIt)
        }
        sent[ref] = attempts
    }

    /// The photo settled: its reports are ignored from now on anyway.
    package mutating func forget(_ ref: PhotoRef) {
        sent.removeValue(forKey: ref)
    }

    /// The job is forgotten.
    package mutating func forget(job: String) {
        sent = sent.filter { $0.key.job != job }
    }

    package var count: Int { sent.count }
}
