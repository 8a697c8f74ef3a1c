import Foundation
import PhotoClusterCore
import PhotoClusterScheduling

/// What must hold of leadership (the journal's fence is checked as each write is made, in
/// `journalWrite`: no write accepted under a token the lease row no longer carries).
extension SimulationRun {
    /// After every step: at most one coordinator may act by its own lease and its own clock
    /// (a stopped one counts: it would act the moment it woke).
    package func checkLeases() {
        // What makes it so: a leader's own deadline never falls after the row's expiry for its
        // token (it counts from before the database granted it, and takes a margin off).
        for coordinator in coordinators where coordinator.process != .down {
            guard let lease = coordinator.lease, lease.token == leaseTable.token, leaseTable.holder != nil else { continue }
            let deadline = Double(coordinator.runTime(atLocal: lease.deadline)) / 1e6
            let expiry = leaseTable.expiresAt - databaseClockOffset
            guard deadline > expiry + 1e-6 else { continue }
            return fail("\(coordinator.name) counts its lease (token \(lease.token)) to \(String(format: "%.3f", deadline)) s, after the row's expiry at \(String(format: "%.3f", expiry)) s")
        }
        let acting = coordinators.filter { coordinator in
            guard coordinator.process != .down, let lease = coordinator.lease else { return false }
            return lease.mayAct(at: coordinator.local(time))
        }
        guard acting.count > 1 else { return }
        fail("\(acting.map { "\($0.name) (token \($0.lease!.token))" }.joined(separator: " and ")) may all act as leader by their own leases")
    }

    /// A coordinator sends to a worker or writes an output only while its own lease lets it act.
    package func checkActsUnderItsLease(_ slot: Int, _ what: String) {
        let coordinator = coordinators[slot]
        guard let lease = coordinator.lease, !lease.mayAct(at: coordinator.local(time)) else { return }
        fail("\(coordinator.name) \(what) at \(String(format: "%.3f", coordinator.local(time))) s by its clock, after its lease's deadline \(String(format: "%.3f", lease.deadline)) s")
    }

    package static func actionName(_ action: CoordinatorAction) -> String {
        switch action {
        case .sendToWorker(let id, let body): return "sent \(name(of: body)) to \(id)"
        case .sendGraphs(let id, _, let sequence): return "sent graphs #\(sequence) to \(id)"
        case .writeResult(let result, _, _, _): return "started writing photo \(result.photoIndex) of \(result.jobID)"
        default: return "acted"
        }
    }
}
