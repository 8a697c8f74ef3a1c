import Foundation
import PhotoClusterProto

/// The coordinator's protocol messages as the API's JSON shapes.
enum APIJSON {
    static func job(_ summary: Photocluster_V1_JobSummary) -> Components.Schemas.Job {
        .init(
            id: summary.jobID, label: summary.label.isEmpty ? nil : summary.label, state: state(of: summary.phase),
            suspended: summary.suspended, counts: counts(summary.progress), inFlight: Int(summary.inFlight),
            elapsedSeconds: summary.elapsedSeconds, output: summary.outputDir, viewportMode: summary.viewportMode,
            failures: summary.photos.filter { $0.state == .failed || $0.state == .cancelled }.compactMap(photo))
    }

    static func state(of phase: Photocluster_V1_JobPhase) -> Components.Schemas.Job.StatePayload {
        switch phase {
        case .preparation: return .preparing
        case .inProgress: return .running
        case .willFinish: return .finishing
        case .didFinish: return .finished
        case .cancelled: return .cancelled
        case .UNRECOGNIZED: return .running
        }
    }

    static func isOver(_ phase: Photocluster_V1_JobPhase) -> Bool { phase == .didFinish || phase == .cancelled }

    static func counts(_ progress: Photocluster_V1_JobProgress) -> Components.Schemas.JobCounts {
        .init(total: Int(progress.total), done: Int(progress.done), succeeded: Int(progress.succeeded), failed: Int(progress.failed),
              cancelled: Int(progress.cancelled))
    }

    /// A settled photo (nil for one that is not).
    static func photo(_ status: Photocluster_V1_PhotoStatus) -> Components.Schemas.PhotoEvent? {
        let state: Components.Schemas.PhotoEvent.StatePayload
        switch status.state {
        case .done: state = .done
        case .failed: state = .failed
        case .cancelled: state = .cancelled
        default: return nil
        }
        return .init(
            index: Int(status.index), name: status.name, state: state, stage: status.stage.isEmpty ? nil : status.stage,
            reason: status.reason.isEmpty ? nil : status.reason,
            output: state == .done && !status.outputPath.isEmpty ? (status.outputPath as NSString).lastPathComponent : nil,
            width: status.width > 0 ? Int(status.width) : nil, height: status.height > 0 ? Int(status.height) : nil)
    }

    static func worker(_ status: Photocluster_V1_WorkerStatus) -> Components.Schemas.Worker {
        let state: Components.Schemas.Worker.StatePayload =
            switch status.state {
            case .draining: .draining
            case .drained: .drained
            default: .working
            }
        return .init(
            id: status.workerID, host: status.host, state: state, concurrency: Int(status.concurrency), inFlight: Int(status.inFlight),
            completed: Int(clamping: status.completed),
            memoryBudgetBytes: status.memoryBudgetBytes > 0 ? Int(clamping: status.memoryBudgetBytes) : nil,
            memoryInUseBytes: status.memoryBudgetBytes > 0 ? Int(clamping: status.memoryInUseBytes) : nil,
            residentBytes: status.residentBytes > 0 ? Int(clamping: status.residentBytes) : nil)
    }

    /// The whole cluster as `cluster status` heads it: the coordinator, throughput and queues.
    static func status(_ reply: Photocluster_V1_StatusReply) -> Components.Schemas.ClusterStatus {
        let stages = reply.stageLoads.mapValues { Int($0.total) }
        let t = reply.throughput
        let leader = reply.hasLeadership
            ? Components.Schemas.ClusterStatus.LeaderPayload(
                holder: reply.leadership.holder, token: Int(clamping: reply.leadership.token),
                sinceUnixMs: Int(clamping: reply.leadership.sinceUnixMs), leaseSeconds: reply.leadership.leaseSeconds)
            : nil
        return .init(
            coordinatorId: reply.coordinatorID, uptimeSeconds: reply.uptimeSeconds,
            residentBytes: reply.residentBytes > 0 ? Int(clamping: reply.residentBytes) : nil, workers: reply.workers.count,
            queued: Int(reply.queued),
            stages: .init(download: stages[.download] ?? 0, decode: stages[.decode] ?? 0, filter: stages[.filter] ?? 0, encode: stages[.encode] ?? 0),
            throughput: .init(
                photosPerSecond10s: t.photosPerSecond10S, photosPerSecond60s: t.photosPerSecond60S,
                megapixelsPerSecond10s: t.megapixelsPerSecond10S, megapixelsPerSecond60s: t.megapixelsPerSecond60S),
            leader: leader)
    }

    static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
