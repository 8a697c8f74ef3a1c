import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What the worker says, as the session decides it: its hello and credit, its heartbeat's
/// accounting, its acknowledgements, whether the coordinator has been silent too long, and which
/// results the coordinator would refuse. The shell passes in what its engine holds and the time
/// (the session reads no clock), and sends what comes back, in order.
extension WorkerSession {
    package typealias Message = Photocluster_V1_WorkerToCoordinator.OneOf_Body
    package typealias PhotoRef = Photocluster_V1_DropStaleWork.PhotoRef

    /// The coordinator has been silent past its liveness (`silence(at:)`).
    package struct CoordinatorSilence: Equatable {
        package let seconds: TimeInterval
        /// The worker was registered until now: the silence is worth saying, once.
        package let wasRegistered: Bool

        package init(seconds: TimeInterval, wasRegistered: Bool) {
            self.seconds = seconds
            self.wasRegistered = wasRegistered
        }
    }

    /// How long the coordinator may stay silent: its heartbeat interval times its liveness.
    package var livenessPeriod: TimeInterval { heartbeatInterval * Double(heartbeatLiveness) }

    /// The worker introduces itself: `introduction` (its id, host, concurrency, filters,
    /// incarnation) in this build's protocol, naming the photos it holds (the coordinator keeps
    /// them running here), then the credit of every slot not held, then, while it drains, that
    /// it drains (a coordinator that registers it afresh must not give it work meanwhile). The
    /// coordinator's silence is counted from `now`.
    package mutating func hello(
        _ introduction: Photocluster_V1_WorkerHello, holding inFlight: [PhotoRef], heldGraphs: Int,
        draining: Photocluster_V1_WorkerDraining? = nil, at now: MonotonicInstant
    ) -> [Message] {
        var hello = introduction
        hello.protocolVersion = ProtocolVersions.current
        hello.inFlight = inFlight
        hellosSaid += 1
        hello.helloNumber = hellosSaid
        lastHeard = now
        helloSaidAt = now
        awaitingWelcome = true
        var messages: [Message] = [.hello(hello), .credit(.with { $0.grant = credit.free(heldGraphs: heldGraphs) })]
        if let draining { messages.append(.draining(draining)) }
        return messages
    }

    /// The session's part of a heartbeat: the newest assignment accounted for and the photos
    /// held (the coordinator finds lost ones from them), the slots free, and the registration
    /// they are counted for (the newest hello). The shell adds its engine's load.
    package func heartbeat(holding held: [PhotoRef], heldGraphs: Int) -> Photocluster_V1_Heartbeat {
        .with {
            // Between a hello and its welcome nothing of the new registration has come (its
            // assignments follow the welcome), and what was seen counts the registration before,
            // whose numbers the coordinator starts again: a heartbeat queued behind the hello
            // that said so made the new registration's first assignments look lost.
            $0.assignSequence = awaitingWelcome ? 0 : assignSequenceSeen
            $0.helloNumber = hellosSaid
            $0.held = held
            $0.freeSlots = credit.free(heldGraphs: heldGraphs)
        }
    }

    /// Acknowledges a job's control at `epoch`. It leaves in a message of its own, ahead of
    /// anything still waiting to leave (control is timed by its acknowledgement).
    package static func acknowledgement(job: String, epoch: UInt64) -> Message {
        .ack(.with {
            $0.jobID = job
            $0.epoch = epoch
        })
    }

    /// A message of the coordinator arrived at `now`: its silence starts again.
    package mutating func heard(at now: MonotonicInstant) {
        lastHeard = now
    }

    /// Asked at each of the worker's heartbeats: nil while the coordinator spoke within its
    /// liveness period (or before the first hello). Past it, the coordinator may have restarted
    /// and forgotten the worker, which says hello again; the coordinator is forgotten here.
    package mutating func silence(at now: MonotonicInstant) -> CoordinatorSilence? {
        guard let lastHeard else { return nil }
        let seconds = now.seconds(since: lastHeard)
        guard seconds > livenessPeriod else { return nil }
        defer { connectedTo = nil }
        return CoordinatorSilence(seconds: seconds, wasRegistered: connectedTo != nil)
    }

    /// Asked at each of the worker's heartbeats, when the coordinator is not silent: a hello not
    /// welcomed within a liveness period is said again (unless a refusal's back-off holds it).
    package func helloUnanswered(at now: MonotonicInstant) -> Bool {
        guard awaitingWelcome, refusals == 0, let helloSaidAt else { return false }
        return now.seconds(since: helloSaidAt) > livenessPeriod
    }

    /// Why a result of `bytes` may not be sent: it is larger than the coordinator takes (its
    /// welcome's limit), and a message over the limit is dropped with everything beside it. Its
    /// photo fails for good, since trying again makes the same result. Nil: it may be sent.
    package func refusal(ofResultBytes bytes: Int) -> String? {
        bytes > resultLimit ? ResultSizeLimit.refusal(bytes: bytes, limit: resultLimit) : nil
    }
}
