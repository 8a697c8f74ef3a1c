import Foundation
import PhotoClusterProto

/// The task stream: what each worker ran and when, from the spans workers send with each
/// photo's outcome (and the coordinator's own writes of their files), for the dashboard's lanes,
/// `cluster trace` and the per-worker stage-time histograms.
extension CoordinatorNode {
    /// A worker's spans for one attempt of a photo, admitted as the attempt's other reports are.
    /// Each is also a sample of the worker's stage-time histogram (a fused filter's time is not
    /// in its encode's span, so nothing is counted twice).
    func recordSpans(_ report: Photocluster_V1_PhotoSpans, from worker: String) {
        // The job's and worker's own strings, so a kept span shares them instead of holding copies.
        guard let job = jobs[report.jobID], let workerID = workers[worker]?.id else { return }
        for span in report.spans {
            taskStream.record(worker: workerID, job: job.id, photo: report.photoIndex, attempt: report.attempt, span)
            metrics.workerStage(workerID, span.stage.metricLabel, seconds: Double(span.durationUs) / 1e6)
        }
    }

    /// The coordinator's own stage of a photo: writing its file (and its followers'), shown in
    /// the lane of `TaskStream.coordinatorLane`.
    func recordWriteSpan(_ write: ResultWrite) {
        guard taskStream.isEnabled, write.started != .distantPast, let job = jobs[write.result.jobID] else { return }
        var span = Photocluster_V1_StageSpan()
        span.stage = .write
        span.name = "write"
        span.startUnixUs = UInt64(max(0, write.started.timeIntervalSince1970 * 1e6))
        span.durationUs = UInt64(max(0, write.seconds * 1e6))
        span.outcome = write.errors.contains { $0 != nil } ? .failed : .ok
        taskStream.record(worker: TaskStream.coordinatorLane, job: job.id, photo: write.result.photoIndex, attempt: write.result.attempt, span)
    }

    /// The spans recorded after `sequence` (0: from the oldest kept), at most `limit` of them (the
    /// newest), with each photo's name, for the dashboard; and the newest sequence to ask after next.
    public func taskSpans(after sequence: UInt64, limit: Int) async -> TaskStreamPage {
        await onLoop {
            let spans = self.taskStream.spans(after: sequence, limit: limit).map(self.taskSpan)
            return TaskStreamPage(spans: spans, sequence: self.taskStream.recorded, capacity: self.taskStream.capacity)
        }
    }

    /// `cluster trace JOB`: every span the stream keeps of the job. `truncated` when the stream
    /// has given up spans since the job began, which may have been the job's.
    func traceReply(for jobID: String) -> Photocluster_V1_TaskTrace {
        var trace = Photocluster_V1_TaskTrace()
        trace.jobID = jobID
        trace.spans = taskStream.spans(ofJob: jobID).map(taskSpan)
        let oldest = taskStream.oldestStartMicros ?? 0
        trace.windowStartUnixUs = oldest
        if let job = jobs[jobID] {
            trace.truncated = taskStream.hasDropped && UInt64(max(0, job.createdAt.timeIntervalSince1970 * 1e6)) < oldest
        }
        return trace
    }

    private func taskSpan(_ span: TaskStream.Span) -> Photocluster_V1_TaskSpan {
        var message = Photocluster_V1_TaskSpan()
        message.workerID = span.worker
        message.jobID = span.job
        message.photoIndex = span.photo
        if let job = jobs[span.job], Int(span.photo) < job.total { message.photoName = job.name(of: span.photo) }
        message.attempt = span.attempt
        message.span.stage = span.stage
        message.span.name = span.name
        message.span.startUnixUs = span.startMicros
        message.span.durationUs = span.durationMicros
        message.span.outcome = span.outcome
        message.span.fused = span.fused
        return message
    }
}

/// A page of the task stream for the dashboard: spans after the sequence it asked for.
public struct TaskStreamPage: Sendable {
    public let spans: [Photocluster_V1_TaskSpan]
    /// The newest span's sequence: the next page asks for what comes after it.
    public let sequence: UInt64
    /// The most spans the coordinator keeps (0: the stream is off).
    public let capacity: Int
}
