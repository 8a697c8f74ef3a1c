import Foundation
import Logging
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterMetrics
import PhotoClusterProto
import PhotoClusterProtocol
import PhotoClusterStorage
import PhotoClusterTransport

/// What reaches the worker: its hello, the coordinator's messages (through `WorkerSession`), and
/// the connection's events. On the loop thread.
extension WorkerNode {
    /// The hello, credit and drain the session decides, from what the engine holds.
    func sayHello() {
        var introduction = Photocluster_V1_WorkerHello()
        introduction.workerID = configuration.workerID
        introduction.host = ProcessInfo.processInfo.hostName
        introduction.concurrency = UInt32(configuration.engine.concurrency)
        introduction.filters = configuration.filters.descriptors.map(FilterInfoMapping.info)
        introduction.incarnation = incarnation
        let inFlight = engine.inFlightKeys.map { key in WorkerSession.PhotoRef.with { $0.jobID = key.job; $0.photoIndex = key.photo } }
        let messages = session.hello(
            introduction, holding: inFlight, heldGraphs: engine.heldGraphCount, draining: drain?.message, at: .now)
        for message in messages { send(message) }
    }

    /// Reads everything waiting and carries out what the session makes of it (control first:
    /// see `WorkerSession`).
    func receiveAll(from socket: ZMQSocket) {
        var messages: [Photocluster_V1_CoordinatorToWorker] = []
        // A connection's event is queued before its first message: read before every message,
        // whatever the poll said, so a connection that reached the worker itself is never read.
        while connectionEventsLeaveSocketOpen(socket), let frames = try? socket.receive(dontWait: true) {
            guard let payload = frames.last, let message = Envelope.decode(Photocluster_V1_CoordinatorToWorker.self, from: payload) else {
                continue  // a frame that does not parse is dropped, never trusted
            }
            session.heard(at: .now)
            heardFromCoordinator()
            messages.append(message)
        }
        guard !messages.isEmpty else { return }
        for command in session.receive(messages) { perform(command) }
    }

    func perform(_ command: WorkerSession.Command) {
        switch command {
        case .cancel(let job, let photos): engine.cancel(job: job, photos: photos, wakeQueueThread: false)
        case .setSuspended(let job, let suspended): engine.setSuspended(job: job, suspended, wakeQueueThread: false)
        case .reprioritise(let job, let photo, let band): engine.reprioritise(job: job, photo: photo, band: band, wakeQueueThread: false)
        case .acknowledge(let job, let epoch): acknowledge(job: job, epoch: epoch)
        // The engine's queue thread does the rest of the control's work once the acks are out.
        case .wakeQueueThread: engine.wakeQueueThread()
        case .start(let graph): engine.submit(graph)
        case .handBack(let graph): finished(PhotoWork(graph: graph, filters: []), .cancelled(lastFinished: .unspecified))
        case .drop(let job, let photo): engine.cancel(job: job, photos: [photo])
        case .sayHello: sayHello()
        case .registered(let coordinatorID): logger.info("registered with \(coordinatorID) at \(coordinatorEndpoint)")
        case .closeJobs(let open): engine.closeJobs(except: open)
        case .close(let job): engine.close(job: job)
        case .refused(let reason, let retryAfter):
            if reason != lastRefusal {
                logger.error("the coordinator at \(coordinatorEndpoint) refused this worker: \(reason)")
                lastRefusal = reason
            }
            helloAfterRefusal = MonotonicInstant.now.adding(seconds: retryAfter)
        case .drain(let timeout):
            guard drain == nil else { return }
            startDrain(timeout: timeout > 0 ? timeout : configuration.drainTimeout, stays: true) { _ in }
        }
    }

    /// Reads the connection's events; answers whether `socket` is still the one in use.
    func connectionEventsLeaveSocketOpen(_ socket: ZMQSocket) -> Bool {
        connectionEvents()
        return socket === self.socket
    }

    /// The connection's events, read before its messages.
    func connectionEvents() {
        for event in monitor?.poll() ?? [] {
            if case .connected(let endpoint, let descriptor) = event {
                guard case .itself(let warning) = selfConnection.connected(descriptor: descriptor, endpoint: endpoint) else { continue }
                if let warning { logger.warning("\(warning)") }
                return closeSocket()
            } else if case .connectRetried = event, rotation.canMove {
                // The monitor watches this socket only, which connects to the current endpoint.
                return moveToNextCoordinator(because: "refuses connections")
            } else if case .disconnected = event, rotation.canMove {
                return moveToNextCoordinator(because: "closed the connection")
            } else if event.isHandshakeFailure, !refusalLogged {
                refusalLogged = true
                let key = configuration.curve?.keys.publicKey ?? ""
                let advice = "add it to the coordinator's authorized keys as `worker \(key) NAME` (or its .pub file in a worker/ directory there; "
                    + "the coordinator reloads them on SIGHUP), then restart this worker"
                logger.error("the coordinator refused this worker's key \(key): it is not authorized as a worker (not listed, listed as a client, or removed); \(advice)")
            }
        }
    }

    /// Connects again after dropping a connection that reached the worker itself; what was
    /// sent over that one never left, so the worker introduces itself again.
    func reconnect() {
        do {
            try openSocket()
            sayHello()
        } catch where rotation.canMove {
            // A malformed endpoint: the next one may do; this one is tried again in its turn.
            rotation.tried(at: .now)
            moveToNextCoordinator(because: "cannot be connected to (\(error))")
        } catch {
            logger.error("cannot connect to \(coordinatorEndpoint) again: \(error); restart this worker")
        }
    }
}
