import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// A drain under way or ended, on the loop thread (`WorkerNode.drain`).
struct DrainState {
    let deadline: MonotonicInstant
    let timeout: TimeInterval
    /// An admin's drain: the worker stays connected and idle afterwards.
    let stays: Bool
    let running: Int
    let handedBack: Int
    /// Photos still running at the deadline, handed back then (nil: the deadline has not come).
    var handedBackAtTimeout: Int?
    var ended = false
    var onEnd: ((WorkerNode.DrainEnd) -> Void)?

    var message: Photocluster_V1_WorkerDraining {
        .with {
            $0.running = UInt32(clamping: running)
            $0.handedBack = UInt32(clamping: handedBack)
            $0.timeoutMs = UInt32(clamping: Int(timeout * 1000))
            $0.stays = stays
        }
    }
}

/// Draining: the worker takes no new photo, hands back those not started, lets the running ones
/// finish for up to a timeout, then hands back what is left. SIGTERM's way out (`drain(timeout:)`,
/// then `stop()`), and an admin's (`DrainWorker`: the worker stays, idle).
extension WorkerNode {
    /// How a drain went: photos that ran on when it began, handed back then, and handed back at
    /// the timeout (0 when every running photo finished in time).
    public struct DrainEnd: Sendable, Equatable {
        public let running: Int
        public let handedBack: Int
        public let handedBackAtTimeout: Int
    }

    /// Drains (see the extension), calling `started` once the coordinator has been told, and
    /// returns when the last running photo ended or the timeout handed it back. Call `stop()` next.
    public func drain(timeout: TimeInterval, started: @escaping @Sendable (_ running: Int, _ handedBack: Int) -> Void = { _, _ in }) async -> DrainEnd {
        await withCheckedContinuation { continuation in
            loop.post { [unowned self] in
                if let drain, drain.ended {
                    return continuation.resume(returning: DrainEnd(running: 0, handedBack: 0, handedBackAtTimeout: 0))
                }
                startDrain(timeout: timeout, stays: false) { continuation.resume(returning: $0) }
                if let drain { started(drain.running, drain.handedBack) }
            }
        }
    }

    /// On the loop: tells the coordinator first (so it sends nothing more and counts the photos
    /// that follow as handed back by a drain), then hands back what has not started. A drain
    /// already under way (an admin's, then SIGTERM) keeps its deadline and ends the process too.
    func startDrain(timeout: TimeInterval, stays: Bool, onEnd: @escaping (DrainEnd) -> Void) {
        if drain != nil {
            drain!.onEnd = onEnd
            return checkDrain()
        }
        sendPendingProgress()
        // Outcomes reach the loop by `post`, so the hand-backs leave after the message below.
        let (running, handedBack) = engine.beginDrain()
        var state = DrainState(
            deadline: MonotonicInstant.now.adding(seconds: timeout), timeout: timeout, stays: stays, running: running, handedBack: handedBack)
        state.onEnd = onEnd
        drain = state
        send(.draining(state.message))
        let why = stays ? "the coordinator asked (cluster drain)" : "asked to stop"
        logger.notice("draining (\(why)): \(running) photos running, \(handedBack) handed back; up to \(Int(timeout.rounded(.up))) s")
        checkDrain()
    }

    /// Each tick of the loop: ends the drain when nothing is held any more, and hands back what
    /// still runs at the deadline.
    func checkDrain() {
        guard var state = drain, !state.ended else { return }
        if engine.heldGraphCount > 0 {
            guard state.handedBackAtTimeout == nil, MonotonicInstant.now >= state.deadline else { return }
            let left = engine.heldKeys
            state.handedBackAtTimeout = left.count
            drain = state
            logger.notice("drain timeout (\(Int(state.timeout.rounded(.up))) s): handing back \(left.count) photos still running")
            for (job, keys) in Dictionary(grouping: left, by: \.job) { engine.cancel(job: job, photos: Set(keys.map(\.photo))) }
            return
        }
        state.ended = true
        drain = state
        let end = DrainEnd(running: state.running, handedBack: state.handedBack, handedBackAtTimeout: state.handedBackAtTimeout ?? 0)
        metrics.drained(finished: end.running - end.handedBackAtTimeout, handedBack: end.handedBack + end.handedBackAtTimeout)
        let idle = state.stays ? "; idle until this worker is restarted" : ""
        logger.notice("drained: \(end.running - end.handedBackAtTimeout) photos finished here, \(end.handedBack + end.handedBackAtTimeout) handed back\(idle)")
        state.onEnd?(end)
    }
}
