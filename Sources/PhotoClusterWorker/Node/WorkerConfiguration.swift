import Foundation
import PhotoClusterCore
import PhotoClusterTransport

/// How a worker node connects and how much it takes on.
public struct WorkerConfiguration: Sendable {
    /// The coordinators' worker endpoints, in the order to try them: one (e.g.
    /// `tcp://127.0.0.1:7000` or `inproc://workers`), or a leader and its standbys, of which the
    /// worker talks to one at a time and moves on when it refuses connections or falls silent
    /// (see `EndpointRotation`).
    public var coordinatorEndpoints: [String]
    /// The first coordinator endpoint; setting it leaves that one alone in the list.
    public var coordinatorEndpoint: String {
        get { coordinatorEndpoints[0] }
        set { coordinatorEndpoints = [newValue] }
    }
    public var workerID: String
    public var engine: WorkerEngine.Configuration
    /// Graphs the worker holds at once (running plus queued): its credit window.
    public var window: Int
    public var heartbeatInterval: TimeInterval
    /// Missed heartbeats before the coordinator is presumed gone and the worker says hello again.
    public var heartbeatLiveness: Int
    public var filters: FilterRegistry
    /// CURVE keys for the connection to the coordinator; nil: plain.
    public var curve: CurveClientSettings?
    /// Seconds a drain lets running photos finish before it hands them back (`--drain-timeout`).
    public var drainTimeout: TimeInterval = WorkerConfiguration.defaultDrainTimeout
    /// Below the 30 s that Kubernetes, compose and systemd give a process after SIGTERM, leaving
    /// time to hand back what is left and leave before they kill it.
    public static let defaultDrainTimeout: TimeInterval = 20

    public init(
        coordinatorEndpoint: String,
        workerID: String = WorkerConfiguration.defaultWorkerID(),
        engine: WorkerEngine.Configuration = .init(),
        window: Int? = nil,
        heartbeatInterval: TimeInterval = 1,
        heartbeatLiveness: Int = 3,
        filters: FilterRegistry = .builtIn,
        curve: CurveClientSettings? = nil
    ) {
        self.curve = curve
        self.coordinatorEndpoints = [coordinatorEndpoint]
        self.workerID = workerID
        self.engine = engine
        // Enough queued behind the running photos that downloads overlap with CPU work.
        self.window = window ?? CreditWindow.graphs(concurrency: engine.concurrency)
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatLiveness = heartbeatLiveness
        self.filters = filters
    }

    public static func defaultWorkerID() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(6))"
    }
}
