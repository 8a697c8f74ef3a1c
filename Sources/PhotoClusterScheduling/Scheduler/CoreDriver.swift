import Foundation
import PhotoClusterCore

/// How a shell (the coordinator node, the simulator) tells the core: an event in, the actions
/// it decided carried out in order by the shell's `perform`, then what the shell learned
/// meanwhile (batches of graphs that did not leave, a write that failed at once, a client that
/// now hears of every photo), each the same way. An event told while actions are being carried
/// out waits for them: the core never gets an event while it decides one. Owned by its shell and
/// used on the shell's one thread.
package final class CoreDriver {
    private var telling = false
    /// Events that wait while the actions in hand are carried out.
    private var waiting: [CoordinatorEvent] = []
    /// What the actions are taken into: swapped with the core's buffer, never allocated again.
    private var inHand: [CoordinatorAction] = []
    /// The batches of graphs refused in the current pass.
    private var refused: [RefusedGraphs] = []

    package init() {}

    /// `perform` carries out one action and answers whether a message left (false: a send was refused).
    package func tell(_ event: CoordinatorEvent, to core: CoordinatorCore, now: MonotonicInstant, wallClock: Date, perform: (CoordinatorAction) -> Bool) {
        guard !telling else { return waiting.append(event) }
        telling = true
        defer { telling = false }
        core.handle(event, now: now, wallClock: wallClock)
        carryOutActions(of: core, perform)
        while !waiting.isEmpty {
            core.handle(waiting.removeFirst(), now: now, wallClock: wallClock)
            carryOutActions(of: core, perform)
        }
    }

    /// Carries out the core's actions, in order, until it has none left; the batches refused in
    /// one pass go back together (the core dispatches once), after the pass.
    private func carryOutActions(of core: CoordinatorCore, _ perform: (CoordinatorAction) -> Bool) {
        while core.hasActions {
            core.takeActions(into: &inHand)
            for action in inHand where !perform(action) {
                if let batch = RefusedGraphs(action) { refused.append(batch) }
            }
            if !refused.isEmpty {
                waiting.append(.graphsRefused(refused))
                refused.removeAll()
            }
        }
    }
}
