import Foundation
import PhotoClusterCore

/// What must hold of leadership (the journal's fence is checked as each write is made, in
/// `journalWrite`: no write accepted under a token the lease row no longer carries).
extension SimulationRun {
    /// After every step: at most one coordinator may act by its own lease and its own clock
    /// (a stopped one counts: it would act the moment it woke).
    package func checkLeases() {
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
