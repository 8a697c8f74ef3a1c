import Foundation
import PhotoClusterCore
import PhotoClusterCoordinator
import PhotoClusterTransport
import PhotoClusterWorker

/// A coordinator and local workers in one process, talking over `inproc://` with the same code
/// and messages as a cluster of hosts.
public final class EmbeddedCluster: @unchecked Sendable {
    public let context: ZMQContext
    public let coordinator: CoordinatorNode
    public let workers: [WorkerNode]
    public let clientEndpoint: String

    /// `workers` local workers sharing `concurrency` photos at a time, the engine's cache budget
    /// and one memory budget between them (they share one host's memory). `storage` serves the
    /// workers and, for `index.json`, the coordinator. `allowLoopback` lets the workers download
    /// from loopback, which a worker refuses by default: an embedded cluster runs on the user's own
    /// host, where the photos are often served on 127.0.0.1 (as `cluster demo` does).
    public init(
        workers count: Int, totalConcurrency: Int = UsableCores.count,
        engine: WorkerEngine.Configuration = .init(), filters: FilterRegistry = .builtIn, storage: WorkerStorage = WorkerStorage(),
        allowLoopback: Bool = true
    ) throws {
        context = try ZMQContext()
        let name = "photocluster-\(UUID().uuidString.prefix(8))"
        let workerEndpoint = "inproc://\(name)-workers"
        let clientEndpoint = "inproc://\(name)-clients"
        self.clientEndpoint = clientEndpoint
        coordinator = CoordinatorNode(
            configuration: CoordinatorConfiguration(
                workerEndpoint: workerEndpoint, clientEndpoint: clientEndpoint, s3: storage.s3, sharedRoots: storage.sharedRoots),
            context: context)
        let context = self.context
        let perWorker = max(1, totalConcurrency / max(1, count))
        // One process, one memory limit: the workers share one budget (this process's cgroup
        // limit, else a share of physical memory), unless the caller gave one.
        var cacheBytes = engine.cacheBytes
        let budget = engine.memoryBudget ?? {
            let limit = MemoryLimit.detect()
            cacheBytes = MemoryBudget.cacheBytes(wanted: engine.cacheBytes, limit: limit.bytes)
            return MemoryBudget(limit: limit, cacheBytes: cacheBytes)
        }()
        workers = (0..<max(1, count)).map { index in
            var configuration = allowLoopback ? engine.allowingLoopback() : engine
            configuration.concurrency = perWorker
            configuration.memoryBudget = budget
            configuration.cacheBytes = cacheBytes / max(1, count)
            configuration.storage = storage
            return WorkerNode(
                configuration: WorkerConfiguration(
                    coordinatorEndpoint: workerEndpoint, workerID: "local-\(index + 1)", engine: configuration, filters: filters),
                context: context)
        }
    }

    public func start() throws {
        try coordinator.start()
        for worker in workers { try worker.start() }
    }

    /// Stops the workers, then the coordinator, then frees the context. Close clients first.
    public func stop() {
        for worker in workers { worker.stop() }
        coordinator.stop()
        context.terminate()
    }
}
