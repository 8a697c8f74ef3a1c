import Foundation
import Logging
import PhotoClusterCore
import PhotoClusterTransport

/// Following whichever of several coordinators leads (`--coordinator a,b`): only the leader
/// binds its ports, so the worker keeps one connection, to one endpoint, and moves to the next
/// when the current one refuses connections (a standby, or a leader that died: the socket
/// monitor says so within milliseconds) or stays silent for the liveness period (a frozen
/// leader, whose port stays open). On the loop thread.
extension WorkerNode {
    /// Leaves the current endpoint for the next: the socket closes at once, and a fresh one
    /// (under a fresh routing id with CURVE) opens now or, when that endpoint was tried a moment
    /// ago, once the rotation's back-off allows.
    func moveToNextCoordinator(because reason: String) {
        let now = MonotonicInstant.now
        let (from, to, openAt) = rotation.move(at: now)
        metrics.coordinatorSwitched()
        // The silence that may have caused this move must not cause another before the next
        // endpoint had its liveness period.
        lastReopened = now
        if movesLogged.insert("\(from) \(reason)").inserted {
            logger.warning("\(from) \(reason); trying \(to)")
        }
        closeSocket()
        openMovedSocketAt = openAt
        if openAt <= now { openMovedSocket() }
    }

    /// Opens the socket to the endpoint moved to, and introduces the worker there, as after a
    /// reconnect: what it holds, its credit, and whether it drains.
    func openMovedSocket() {
        openMovedSocketAt = nil
        reconnect()
    }

    /// A coordinator spoke: the moves of the next outage are worth a line each again.
    func heardFromCoordinator() {
        guard rotation.canMove else { return }
        rotation.answered()
        movesLogged.removeAll()
    }
}
