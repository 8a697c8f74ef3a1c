import Foundation
import PhotoClusterClient
import PhotoClusterCoordinator
import PhotoClusterScheduling
import PhotoClusterTestSupport
import PhotoClusterTransport

/// A real coordinator on loopback TCP, a client and an output directory, for tests whose workers
/// are `ScriptedWorker`s. `stop()` closes the client and the workers, then the coordinator.
final class ScriptedWorkerCluster {
    let context: ZMQContext
    let coordinator: CoordinatorNode
    let client: ClusterClient
    let out: URL
    private var workers: [ScriptedWorker] = []

    /// `clientEndpoint`: where clients connect, on loopback TCP unless a test needs another.
    init(
        name: String, retryBackoff: TimeInterval = 0.25, clientEndpoint: String = "tcp://127.0.0.1:*",
        heartbeat: (interval: TimeInterval, liveness: Int) = (1, 3), maxWorkerLosses: UInt32 = 3, state: URL? = nil,
        workerBudgets: WorkerBudgets = WorkerBudgets()
    ) throws {
        context = try ZMQContext()
        var configuration = CoordinatorConfiguration(
            workerEndpoint: "tcp://127.0.0.1:*", clientEndpoint: clientEndpoint, heartbeatInterval: heartbeat.interval,
            heartbeatLiveness: heartbeat.liveness, maxWorkerLosses: maxWorkerLosses, retryBackoff: retryBackoff, stateDirectory: state)
        configuration.workerBudgets = workerBudgets
        coordinator = CoordinatorNode(configuration: configuration, context: context)
        try coordinator.start()
        client = try ClusterClient(endpoint: coordinator.boundClientEndpoint, context: context)
        out = Repository.temporaryDirectory(name)
    }

    /// A scripted worker that has said hello; it has no credit until the test grants some.
    func connect(_ id: String, filters: [String] = ["sepia"], concurrency: UInt32 = 4) throws -> ScriptedWorker {
        let worker = try ScriptedWorker(id: id, context: context, coordinator: coordinator, filters: filters, concurrency: concurrency)
        workers.append(worker)
        return worker
    }

    func stop() {
        client.close()
        for worker in workers { worker.close() }
        coordinator.stop()
        context.terminate()
        try? FileManager.default.removeItem(at: out)
    }
}
