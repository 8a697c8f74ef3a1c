import Foundation
import PhotoClusterProto

/// The task stream's side of a photo: each stage records when it ran and how it ended, and the
/// photo's outcome carries them to the coordinator (`PhotoSpans`, one report a photo, in the
/// same batch as the outcome).
extension PhotoWork {
    /// Records a stage that ran from `started` until now (or for `seconds`). The stage calls it
    /// as it ends, so how it ended follows from the photo's state: cancelled once the photo is,
    /// failed when it left a failure (no stage starts after one), else ok.
    func recordSpan(_ stage: Photocluster_V1_Stage, name: String, started: Date, seconds: TimeInterval? = nil, fused: Bool = false) {
        var span = Photocluster_V1_StageSpan()
        span.stage = stage
        span.name = name
        span.startUnixUs = UInt64(max(0, started.timeIntervalSince1970 * 1e6))
        span.durationUs = UInt64(max(0, (seconds ?? Date().timeIntervalSince(started)) * 1e6))
        span.fused = fused
        let cancelled = isCancelled
        update { contents in
            if cancelled {
                span.outcome = .cancelled
            } else if case .failed = contents.outcome {
                span.outcome = .failed
            }
            contents.spans.append(span)
        }
    }

    /// The stages that ran, as the report that goes before the photo's outcome; nil when none ran.
    func spansReport() -> Photocluster_V1_PhotoSpans? {
        let spans = read { $0.spans }
        guard !spans.isEmpty else { return nil }
        var report = Photocluster_V1_PhotoSpans()
        report.jobID = graph.jobID
        report.photoIndex = graph.photoIndex
        report.attempt = graph.attempt
        report.graphEpoch = graph.epoch
        report.spans = spans
        return report
    }
}
