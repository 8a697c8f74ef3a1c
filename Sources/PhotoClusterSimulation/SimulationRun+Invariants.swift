import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterScheduling

/// What must hold after every step of a run (those checked as actions happen are in
/// `SimulationRun`: a photo settles once, a result is written only from an attempt sent to its
/// worker, no output is written twice, a done photo has its output).
extension SimulationRun {
    /// Credit is conserved, and every photo in flight is on a connected worker (or its result is
    /// being written).
    package func checkState(of core: CoordinatorCore) {
        for worker in core.workers.values {
            guard worker.credits >= 0, worker.credits + worker.inFlight.count <= worker.creditLimit else {
                return fail("worker \(worker.id) has \(worker.credits) credit and \(worker.inFlight.count) photos in flight, over its limit of \(worker.creditLimit)")
            }
        }
        // Read once: each read of the core's tables from this module is an access of its own.
        let (jobs, workerIDs, writing) = (core.jobs, core.workerIDs, core.writing)
        for id in jobIDs {
            guard let job = jobs[id] else { continue }
            let photos = job.photos
            for index in job.inFlight.keys {
                let worker = photos[Int(index)].worker
                // A photo whose result is being written keeps the worker that sent it until then.
                guard workerIDs[worker] != nil || writing[PhotoRef(job: id, index: index)] != nil else {
                    return fail("photo \(index) of job \(id) is in flight on worker number \(worker.value), which is not connected")
                }
            }
        }
    }

    /// A coordinator process registers a worker process again only now and then: the worker
    /// says hello again when it heard nothing for a liveness period, or when its hello went
    /// unanswered for one. Never in a burst: a restarted coordinator reads the heartbeats queued
    /// while it was down, and asking each of them to register made the worker register once
    /// per heartbeat, each registration taking back what the one before was given.
    func checkRegistration(_ hello: Photocluster_V1_WorkerHello, by slot: Int) {
        let coordinator = coordinators[slot]
        guard coordinator.core?.workers[hello.workerID]?.incarnation == hello.incarnation else { return }
        let key = "\(coordinator.incarnation)/\(hello.incarnation)"
        let times = registeredAgain[key, default: 0] + 1
        registeredAgain[key] = times
        if times > Self.registrationsAgain {
            fail("\(coordinator.name)#\(coordinator.incarnation) registered worker process \(hello.incarnation) again \(times) times")
        }
    }

    /// The most hellos one coordinator process may read from a worker process it registered.
    static let registrationsAgain = 3

    /// A worker never grants a slot it has not got, checked as what it says leaves it: what it
    /// granted since its hello and was not sent yet, plus what it holds, stays within its
    /// window, and its heartbeat says no more is free. (The coordinator holds a worker's credit
    /// to its bound, so `checkState` could never show this.)
    func checkCredit(of worker: SimulatedWorker, saying body: Photocluster_V1_WorkerToCoordinator.OneOf_Body) {
        if case .heartbeat(let beat) = body, Int(beat.freeSlots) > worker.window - worker.held.count {
            return fail("worker \(worker.id) says \(beat.freeSlots) slots are free while it holds \(worker.held.count) graphs of its window of \(worker.window)")
        }
        if worker.creditOutstanding + worker.held.count > worker.window {
            fail("worker \(worker.id) granted credit it has not got: \(worker.creditOutstanding) graphs may still come, "
                + "and it holds \(worker.held.count), over its window of \(worker.window)")
        }
    }

    /// No photo stays assigned to a running worker that has not held it for two of its
    /// heartbeats (and a little for the messages on their way).
    package func checkHeldAssignments(of core: CoordinatorCore) {
        var stillMissing: [PhotoRef: Int64] = [:]
        for id in jobIDs {
            guard let job = core.jobs[id] else { continue }
            for index in job.inFlight.keys {
                let ref = PhotoRef(job: id, index: index)
                guard core.writing[ref] == nil, let workerID = core.workerIDs[job.photos[Int(index)].worker],
                    let worker = workers.first(where: { $0.id == workerID }), worker.process == .running, worker.connection != 0,
                    !worker.holds(id, index)
                else { continue }
                let since = missingSince[ref] ?? time
                stillMissing[ref] = since
                if time - since > 3_500_000 {
                    return fail("photo \(index) of job \(id) has been assigned to \(workerID) for \(Double(time - since) / 1e6) s, which does not hold it")
                }
            }
        }
        // A photo whose worker stops or is cut off starts its clock again.
        missingSince = stillMissing
    }

    /// Control epochs never go back on a worker: each message about a job carries its newest epoch.
    package func checkEpoch(of body: Photocluster_V1_CoordinatorToWorker.OneOf_Body, to worker: String) {
        let (job, epoch): (String, UInt64)
        switch body {
        case .control(let control): (job, epoch) = (control.jobID, control.epoch)
        case .cancel(let cancel): (job, epoch) = (cancel.jobID, cancel.epoch)
        default: return
        }
        let incarnation = workers.first { $0.id == worker && $0.connection != 0 }.map(\.incarnationName) ?? worker
        if let previous = epochsSent[incarnation]?[job], epoch < previous {
            return fail("worker \(worker) was sent epoch \(epoch) of job \(job) after epoch \(previous)")
        }
        epochsSent[incarnation, default: [:]][job] = epoch
    }
}
