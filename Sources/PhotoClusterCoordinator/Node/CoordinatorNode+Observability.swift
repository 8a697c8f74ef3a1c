import Foundation
import PhotoClusterCore
import PhotoClusterMetrics
import PhotoClusterProto
import PhotoClusterScheduling

/// Rates, levels and recent failures for operators: `/metrics`, status replies, the dashboard.
extension CoordinatorNode {
    /// Once a second on the loop thread: closes the throughput second and sets every level gauge.
    func closeSecond() {
        history.closeSecond()
        metrics.httpEventStreams(openEventStreams)
        var stages: [String: Int] = [:]
        for worker in workers.values {
            for load in worker.stages { stages[load.stage.metricLabel, default: 0] += Int(load.queued + load.running) }
        }
        let inFlightByJob = photosInFlightByJob()
        var queued = 0
        var counts: [String: CoordinatorMetrics.JobCounts] = [:]
        var phases: [String: Int] = [:]
        for (id, job) in jobs {
            phases[job.phase.metricLabel, default: 0] += 1
            guard !job.isFinished else { continue }
            queued += job.queuedCount
            let progress = job.progress
            counts[id] = .init(
                total: Int(progress.total), succeeded: Int(progress.succeeded), failed: Int(progress.failed),
                cancelled: Int(progress.cancelled), inFlight: inFlightByJob[id] ?? 0)
        }
        metrics.queues(queued: queued, stages: stages)
        metrics.workers(inFlight: workers.mapValues { $0.inFlight.count })
        metrics.jobs(counts, phases: phases)
        metrics.resident(bytes: ResidentMemory.bytes())
    }

    /// The Prometheus exposition of the coordinator's metrics (any thread).
    public func metricsExposition() -> String { metrics.exporter.exposition() }

    func photosInFlightByJob() -> [String: Int] {
        var counts: [String: Int] = [:]
        for worker in workers.values {
            for ref in worker.inFlight { counts[ref.job, default: 0] += 1 }
        }
        return counts
    }

    /// A photo reached an end: count it by outcome, in the rates, and among recent failures.
    func recordEnd(of photo: PhotoRecord, job: String, worker: String?) {
        history.photoSettled(job: job)
        switch photo.state {
        case .done:
            metrics.photoEnded(outcome: "succeeded")
            history.photoSucceeded(job: job, worker: worker)
        case .failed:
            metrics.photoEnded(outcome: "failed")
            let name = jobs[job]?.name(of: photo.index) ?? ""
            recentFailures.record(job: job, photo: photo, name: name)
            log(.notice, "photo \(photo.index) (\(name)) failed at \(photo.failedStage): \(photo.reason)", job: job, photo: photo.index)
        default:
            metrics.photoEnded(outcome: "cancelled")
        }
    }

    /// Rates for the whole cluster, one worker or one job.
    func throughput(worker: String? = nil, job: String? = nil) -> Photocluster_V1_Throughput {
        let now = Date()
        let short = history.rates(window: 10, worker: worker, job: job, now: now)
        let long = history.rates(window: 60, worker: worker, job: job, now: now)
        var throughput = Photocluster_V1_Throughput()
        throughput.photosPerSecond10S = short.photos
        throughput.photosPerSecond60S = long.photos
        throughput.megapixelsPerSecond10S = short.megapixels
        throughput.megapixelsPerSecond60S = long.megapixels
        return throughput
    }

    /// The rates of the last ten minutes, second by second, for the dashboard's charts.
    public func throughputHistory() async -> ThroughputHistory {
        await onLoop { self.history }
    }
}
