import Foundation
import PhotoClusterProto
import PhotoClusterTransport

/// What a worker said in one ZeroMQ message, as the bodies of messages that each carry one
/// thing: a batch of reports is taken apart in order, each result given the photo frame it
/// names (in `encoded`), and the batch's credit comes last.
enum WorkerMessages {
    typealias Body = Photocluster_V1_WorkerToCoordinator.OneOf_Body

    /// `frames`: as a ROUTER receives them (identity, envelope, photos).
    static func bodies(_ frames: [Data]) -> [Body] {
        guard frames.count >= 2, let body = Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frames[1])?.body else { return [] }
        guard case .reports(let batch) = body else { return [body] }
        var photos = frames[2...]
        var bodies: [Body] = batch.reports.compactMap { report in
            switch report.body {
            case .progress(let progress): return .progress(progress)
            case .result(var result):
                if result.photoInFrame { result.encoded = photos.popFirst() ?? Data() }
                return .result(result)
            case .failure(let failure): return .failure(failure)
            case .cancelled(let cancelled): return .cancelled(cancelled)
            case .ack(let ack): return .ack(ack)
            // The task stream's timings have no message of their own: `spans(_:)` takes them out.
            // Memory grants have none either: tests that need them read the batch themselves.
            case .spans, .admitted, .none: return nil
            }
        }
        if batch.credit > 0 { bodies.append(.credit(.with { $0.grant = batch.credit })) }
        return bodies
    }

    /// The task-stream spans a worker's batch carried, one report per photo, in order.
    static func spans(_ frames: [Data]) -> [Photocluster_V1_PhotoSpans] {
        guard frames.count >= 2, case .reports(let batch)? = Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frames[1])?.body
        else { return [] }
        return batch.reports.compactMap { report in
            if case .spans(let spans) = report.body { return spans }
            return nil
        }
    }
}
