import Foundation
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterProto

/// What `cluster top` shows, made from one status reply: a full screen for a terminal, or one
/// plain line for a log. No I/O here, so the layout is testable.
enum TopScreen {
    /// The jobs worth a row: unfinished ones first, then the most recent finished ones.
    static let jobRows = 8

    static func render(_ reply: StatusReply, endpoint: String, width: Int, now: Date = Date()) -> [String] {
        let t = reply.throughput
        var lines: [String] = []
        lines.append("PhotoCluster top — \(reply.coordinatorID) at \(endpoint)   up \(duration(reply.uptimeSeconds))\(coordinatorResident(reply))   \(clock(now))")
        lines.append(
            "throughput   photos/s \(rate(t.photosPerSecond10S)) (10 s)  \(rate(t.photosPerSecond60S)) (1 min)"
                + "   megapixels/s \(rate(t.megapixelsPerSecond10S)) (10 s)  \(rate(t.megapixelsPerSecond60S)) (1 min)")
        let stages = reply.stageLoads
        lines.append(
            "queues       coordinator \(reply.queued)   "
                + stageOrder.map { "\($0.1) \(stages[$0.0].map { "\($0.queued)+\($0.running)" } ?? "0+0")" }.joined(separator: "   ")
                + "   (queued+running on workers)")
        lines.append("")
        lines.append("WORKERS \(reply.workers.count)")
        lines.append(columns(["WORKER", "HOST", "CONC", "IN FLIGHT", "DONE", "PHOTOS/S", "MP/S", "DL", "DEC", "FILT", "ENC", "MEMORY", "RESIDENT"], widths: workerWidths))
        for worker in reply.workers {
            let loads = Dictionary(worker.stages.map { ($0.stage, $0.queued + $0.running) }, uniquingKeysWith: +)
            lines.append(columns([
                worker.workerID, worker.host, "\(worker.concurrency)", "\(worker.inFlight)\(stateText(worker))", "\(worker.completed)",
                rate(worker.throughput.photosPerSecond10S), rate(worker.throughput.megapixelsPerSecond10S),
            ] + stageOrder.map { "\(loads[$0.0] ?? 0)" } + [memoryColumn(worker), residentColumn(worker)], widths: workerWidths))
        }
        if reply.workers.isEmpty { lines.append("  (no worker connected: start `cluster worker --coordinator …` on each host)") }
        lines.append("")
        let jobs = visibleJobs(reply.jobs)
        lines.append("JOBS \(reply.jobs.count)")
        lines.append(columns(["JOB", "LABEL", "PHASE", "PROGRESS", "DONE/TOTAL", "FAILED", "PHOTOS/S", "LEFT"], widths: jobWidths))
        for job in jobs {
            let p = job.progress
            lines.append(columns([
                job.jobID, job.label, job.phase.displayName + (job.suspended ? " (suspended)" : ""),
                bar(done: Int(p.done), total: Int(p.total), width: jobWidths[3] - 8), "\(p.done)/\(p.total)", "\(p.failed)",
                rate(job.throughput.photosPerSecond10S), timeLeft(job),
            ], widths: jobWidths))
        }
        if let failure = reply.recentFailures.first {
            lines.append("")
            lines.append("latest failure: \(failure.jobID) photo \(failure.index) (\(failure.name)) at \(failure.stage): \(failure.reason)")
        }
        return lines.map { clip($0, to: width) }
    }

    /// The time an open job's remaining photos take at its pace over the last 10 s (`3 min`);
    /// `-` for a finished job or one that is not moving.
    static func timeLeft(_ job: JobSummary) -> String {
        let left = Int(job.progress.total) - Int(job.progress.done), pace = job.throughput.photosPerSecond10S
        guard !isFinished(job), left > 0, pace > 0 else { return "-" }
        return ProgressRate.durationText(Double(left) / pace)
    }

    /// " draining" or " drained" after a worker that takes no work; nothing for one that does.
    static func stateText(_ worker: Photocluster_V1_WorkerStatus) -> String {
        switch worker.state {
        case .draining: return " draining"
        case .drained: return " drained"
        default: return ""
        }
    }

    /// A worker's memory budget as `held/budget GiB` and the photos waiting for it (`+2 waiting`);
    /// `-` for a worker that reports none.
    static func memoryColumn(_ worker: Photocluster_V1_WorkerStatus) -> String {
        guard worker.memoryBudgetBytes > 0 else { return "-" }
        let gib = { (bytes: UInt64) in String(format: "%.1f", Double(bytes) / Double(1 << 30)) }
        let waiting = worker.photosWaitingForMemory > 0 ? " +\(worker.photosWaitingForMemory) waiting" : ""
        return "\(gib(worker.memoryInUseBytes))/\(gib(worker.memoryBudgetBytes))G\(waiting)"
    }

    /// A worker's process's resident memory (`340M`, `1.2G`): its budget's photos, its stage
    /// cache and the rest of the process; `-` for a worker that reports none.
    static func residentColumn(_ worker: Photocluster_V1_WorkerStatus) -> String {
        let bytes = worker.residentBytes
        if bytes == 0 { return "-" }
        return bytes < 1 << 30 ? "\((bytes + (1 << 19)) >> 20)M" : String(format: "%.1fG", Double(bytes) / Double(1 << 30))
    }

    /// The coordinator's resident memory after its uptime (`, 58 MiB resident`); nothing when not reported.
    static func coordinatorResident(_ reply: StatusReply) -> String {
        reply.residentBytes > 0 ? ", \(ByteCount(Int(clamping: reply.residentBytes))) resident" : ""
    }

    /// `cluster status`'s words for both.
    static func memoryText(_ worker: Photocluster_V1_WorkerStatus) -> String {
        let gib = { (bytes: UInt64) in String(format: "%.1f GiB", Double(bytes) / Double(1 << 30)) }
        let resident = worker.residentBytes > 0 ? "  resident \(ByteCount(Int(clamping: worker.residentBytes)))" : ""
        guard worker.memoryBudgetBytes > 0 else { return resident }
        return "  memory \(gib(worker.memoryInUseBytes)) of \(gib(worker.memoryBudgetBytes)) (limit \(gib(worker.memoryLimitBytes))), "
            + "\(worker.photosWaitingForMemory) waiting" + resident
    }

    /// One line per refresh when the output is not a terminal.
    static func line(_ reply: StatusReply, now: Date = Date()) -> String {
        let t = reply.throughput
        let stages = reply.stageLoads
        var text = "\(clock(now)) workers=\(reply.workers.count) queued=\(reply.queued)"
        for (stage, name) in stageOrder {
            text += " \(name)=\(stages[stage]?.total ?? 0)"
        }
        text += " photos/s=\(rate(t.photosPerSecond10S))/\(rate(t.photosPerSecond60S)) MP/s=\(rate(t.megapixelsPerSecond10S))/\(rate(t.megapixelsPerSecond60S))"
        let budgeted = reply.workers.filter { $0.memoryBudgetBytes > 0 }
        if !budgeted.isEmpty {
            let gib = { (bytes: UInt64) in String(format: "%.1f", Double(bytes) / Double(1 << 30)) }
            let held = budgeted.reduce(UInt64(0)) { $0 + $1.memoryInUseBytes }, budget = budgeted.reduce(UInt64(0)) { $0 + $1.memoryBudgetBytes }
            text += " memory=\(gib(held))/\(gib(budget))G waiting_for_memory=\(budgeted.reduce(0) { $0 + Int($1.photosWaitingForMemory) })"
        }
        let resident = reply.workers.reduce(UInt64(0)) { $0 + $1.residentBytes }
        if resident > 0 { text += String(format: " resident=%.1fG", Double(resident) / Double(1 << 30)) }
        for job in reply.jobs where !isFinished(job) {
            text += " \(job.jobID)=\(job.progress.done)/\(job.progress.total)"
        }
        return text
    }

    // MARK: - Pieces

    static let stageOrder: [(Photocluster_V1_Stage, String)] = [(.download, "download"), (.decode, "decode"), (.filter, "filter"), (.encode, "encode")]
    static let workerWidths = [24, 16, 5, 12, 8, 9, 8, 4, 4, 5, 4, 18, 9]
    static let jobWidths = [14, 18, 22, 30, 12, 7, 9, 10]

    static func visibleJobs(_ jobs: [JobSummary]) -> [JobSummary] {
        let open = jobs.filter { !isFinished($0) }
        let finished = jobs.filter(isFinished).suffix(max(0, jobRows - open.count))
        return Array((open + finished).prefix(jobRows))
    }

    static func isFinished(_ job: JobSummary) -> Bool { job.phase == .didFinish || job.phase == .cancelled }

    /// `[█████░░░░░]  52%`
    static func bar(done: Int, total: Int, width: Int) -> String {
        let inner = max(4, width)
        let fraction = total > 0 ? Double(done) / Double(total) : 0
        let filled = Int((fraction * Double(inner)).rounded(.down))
        let percent = String(format: "%3d%%", Int((fraction * 100).rounded(.down)))
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: inner - filled) + "]" + percent
    }

    static func columns(_ values: [String], widths: [Int]) -> String {
        zip(values, widths).map { value, width in
            let cut = value.count > width - 1 ? String(value.prefix(width - 2)) + "…" : value
            return cut.padding(toLength: width, withPad: " ", startingAt: 0)
        }.joined().trimmingCharacters(in: .whitespaces)
    }

    static func clip(_ line: String, to width: Int) -> String {
        line.count > width ? String(line.prefix(max(0, width - 1))) + "…" : line
    }

    static func rate(_ value: Double) -> String { String(format: "%.1f", value) }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds)
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }

    static func clock(_ date: Date) -> String {
        date.formatted(.iso8601.time(includingFractionalSeconds: false).timeSeparator(.colon))
    }
}
