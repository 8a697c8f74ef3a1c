import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto

/// A worker's engine without its node: graphs go straight in and outcomes come straight back,
/// with no ZeroMQ, no coordinator and no stage-progress messages. The pipeline benchmark runs
/// the worker's own operations and queues through it, to tell what the engine costs apart from
/// what the cluster around it costs.
public final class LocalEngine: Sendable {
    public enum Outcome: Sendable {
        case encoded(Data, ImageFormat)
        case failed(stage: String, reason: String)
        case cancelled
    }

    public typealias OutcomeHandler = @Sendable (_ job: String, _ photo: UInt32, Outcome) -> Void

    private let engine: WorkerEngine

    /// `onOutcome` runs once per submitted graph, on one of the engine's queue threads.
    public init(configuration: WorkerEngine.Configuration, filters: FilterRegistry = .builtIn, onOutcome: @escaping OutcomeHandler) {
        engine = WorkerEngine(
            configuration: configuration, filters: filters,
            onStage: { _, _, _, _, _ in },
            onOutcome: { work, outcome in
                let local: Outcome
                switch outcome {
                case .encoded(let data, let format, _, _): local = .encoded(data, format)
                case .failed(_, let stageName, let reason, _): local = .failed(stage: stageName, reason: reason)
                case .cancelled: local = .cancelled
                }
                onOutcome(work.graph.jobID, work.graph.photoIndex, local)
            })
    }

    public func submit(_ graph: Photocluster_V1_PhotoGraph) { engine.submit(graph) }

    /// Cancels what runs, waits for it to end and stops the transfers' thread.
    public func shutdown() { engine.shutdown() }
}
