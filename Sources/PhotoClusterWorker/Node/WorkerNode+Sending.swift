import Foundation
import Logging
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterMetrics
import PhotoClusterProto
import PhotoClusterProtocol
import PhotoClusterStorage
import PhotoClusterTransport

/// What leaves the worker: acknowledgements ahead of everything, heartbeats, reports, and
/// messages waiting for a connection. On the loop thread.
extension WorkerNode {
    /// Acknowledges control ahead of every message still waiting to leave (results, progress).
    func acknowledge(job: String, epoch: UInt64) {
        // Control is timed by its acknowledgement: it leaves now, ahead of anything still
        // waiting to leave (results the socket could not take yet), in a message of its own.
        var message = Photocluster_V1_WorkerToCoordinator()
        message.body = WorkerSession.acknowledgement(job: job, epoch: epoch)
        unsent.insert([Envelope.encode(message)], at: 0)
        flushUnsent()
    }

    func heartbeat() {
        lastHeartbeatSent = .now
        flushUnsent()
        heartbeatSequence += 1
        let held = engine.heldKeys.map { key in WorkerSession.PhotoRef.with { $0.jobID = key.job; $0.photoIndex = key.photo } }
        var beat = session.heartbeat(holding: held, heldGraphs: engine.heldGraphCount)
        beat.sequence = heartbeatSequence
        beat.sentUnixMs = UInt64(Date().timeIntervalSince1970 * 1000)
        beat.inFlight = UInt32(engine.inFlightCount)
        let loads = engine.stageLoads()
        beat.stages = loads.sorted { $0.key.rawValue < $1.key.rawValue }.map { stage, load in
            .with {
                $0.stage = stage
                $0.queued = UInt32(load.queued)
                $0.running = UInt32(load.running)
            }
        }
        metrics.load(
            Dictionary(uniqueKeysWithValues: loads.map { ($0.key.metricLabel, $0.value) }), photosInFlight: Int(beat.inFlight))
        if let memory = engine.memory {
            beat.memoryLimitBytes = UInt64(memory.limitBytes)
            beat.memoryBudgetBytes = UInt64(memory.budgetBytes)
            beat.memoryInUseBytes = UInt64(memory.inUseBytes)
            beat.photosWaitingForMemory = UInt32(memory.waitingPhotos)
            metrics.memory(
                limit: memory.limitBytes, budget: memory.budgetBytes, inUse: memory.inUseBytes, peakInUse: memory.peakInUseBytes,
                waiting: memory.waitingPhotos, waitsTotal: memory.waitsTotal, refusalsTotal: memory.refusalsTotal)
        }
        let resident = ResidentMemory.bytes()
        beat.residentBytes = UInt64(resident ?? 0)
        metrics.footprint(cacheBytes: engine.cache.usedBytes, cacheCapacity: engine.cache.capacityBytes, residentBytes: resident)
        send(.heartbeat(beat))
        if let silent = session.silence(at: .now) {
            let silence = silent.seconds
            if silent.wasRegistered {
                metrics.coordinatorSilent()
                logger.warning("no word from the coordinator at \(coordinatorEndpoint) for \(String(format: "%.1f", silence)) s; saying hello again")
            }
            // The coordinator may have restarted and forgotten us: introduce ourselves again. A
            // coordinator with CURVE keys never hands a routing id over, so a connection made
            // while an old one of ours still lingered half-open there is never heard: once per
            // liveness period of silence the worker connects afresh, under a new routing id.
            if lastReopened.map({ MonotonicInstant.now.seconds(since: $0) >= session.livenessPeriod }) ?? true {
                lastReopened = .now
                if rotation.canMove {
                    // A frozen coordinator keeps its port open and answers nothing: try the next.
                    moveToNextCoordinator(because: "has been silent for \(String(format: "%.1f", silence)) s")
                } else {
                    closeSocket()
                    reconnect()
                }
            } else {
                sayHello()
            }
        } else if session.helloUnanswered(at: .now) {
            logger.info("no welcome from the coordinator at \(coordinatorEndpoint) for \(String(format: "%.1f", session.livenessPeriod)) s after this worker's hello; saying hello again")
            sayHello()
        }
    }

    /// Sends a message after the reports gathered so far, so the coordinator hears everything in
    /// the order it happened.
    func send(_ body: Photocluster_V1_WorkerToCoordinator.OneOf_Body) {
        sendReports()
        var message = Photocluster_V1_WorkerToCoordinator()
        message.body = body
        unsent.append([Envelope.encode(message)])
        flushUnsent()
    }

    /// Sends the reports gathered during this turn as one message (the loop calls it as each turn
    /// ends); encoded photos follow the envelope as frames of their own, so they are never copied
    /// into (and out of) a protobuf message.
    func sendReports() {
        guard let frames = reports.take() else { return }
        unsent.append(frames)
        flushUnsent()
    }

    /// Sends the progress gathered since the last batch. Runs before every outcome, so the
    /// coordinator always learns what a worker holds before it learns how the photo ended.
    func sendPendingProgress() {
        for admitted in pendingAdmissions.takeAll() { reports.add(.admitted(admitted)) }
        for progress in pendingProgress.takeAll() { reports.add(.progress(progress)) }
    }

    func flushUnsent() {
        guard let socket else { return }
        while let next = unsent.first {
            do {
                try socket.send(next, dontWait: true)
                unsent.removeFirst()
            } catch {
                return  // not connected yet or peer busy: retried on the next heartbeat
            }
        }
    }
}
