import Foundation
import PhotoClusterCore

/// Runs the photo's `index`-th filter, a built-in one, in this process. The filter checks for
/// cancellation between bands of rows, and so stops once the photo is cancelled or the stage
/// has run past its time limit; its output is cached as the result of the chain's prefix up to
/// here.
final class FilterOperation: CPUStageOperation, @unchecked Sendable {
    private let index: Int
    private let limit: TimeInterval
    private let cache: StageCache
    private let admission: PhotoAdmission
    private let report: StageReporter

    init(
        work: PhotoWork, index: Int, limit: TimeInterval, cache: StageCache, admission: PhotoAdmission, report: StageReporter,
        priority: ThreadPriority
    ) {
        self.index = index
        self.limit = limit
        self.cache = cache
        self.admission = admission
        self.report = report
        super.init(work: work, priority: priority)
        name = "filter \(work.filters[index].name) \(work.graph.name)"
    }

    override func runStage() {
        guard !isCancelled, work.shouldContinue, let (input, shared) = work.read({ c in c.image.map { ($0, c.imageIsShared) } }) else { return }
        // A photo resumed from the cache asks for memory here, at its first stage.
        guard admission.admit(work, start: .decoded(input.size, shared: shared), firstFilter: index, stage: .filter, stageName: "filter:\(work.filters[index].name)")
        else { return }
        let filter = work.filters[index]
        let started = Date()
        var measured: TimeInterval?
        defer { work.recordSpan(.filter, name: "filter:\(filter.name)", started: started, seconds: measured) }
        let deadline = StageDeadline(limit: limit)
        let cancelled = { [work] in work.isCancelled }
        do {
            // Cached images are immutable: filter a copy (point filters write it in one pass). An
            // image the cache did not keep is this photo's own: filters that can, write over it.
            let check = { cancelled() || deadline.hasPassed }
            let output = shared
                ? try filter.stage.apply(toCopyOf: input, parameters: filter.parameters, isCancelled: check)
                : try filter.stage.apply(to: input, parameters: filter.parameters, isCancelled: check)
            let origin = work.read { $0.origin }
            let cached = origin.map { cache.put(work.pixelsKey(filtersDone: index + 1), .image(output, $0)) } ?? false
            let isLast = index == work.filters.count - 1
            work.update {
                $0.image = output
                $0.imageIsShared = cached
                if isLast { $0.lastFinished = .filter }
            }
            measured = Date().timeIntervalSince(started)
            if isLast {
                report.stageFinished(work, .filter, bytes: 0, pixels: UInt64(output.pixelCount), seconds: measured!)
            }
        } catch is FilterCancelled {
            guard !cancelled(), deadline.hasPassed else { return }
            report.incident(work, .stageTimedOut(stage: .filter, name: "filter:\(filter.name)", limit: limit))
            work.fail(stage: .filter, name: "filter:\(filter.name)", reason: "filter \(filter.name) \(StageTimeLimit.overrun(limit))")
        } catch {
            work.fail(stage: .filter, name: "filter:\(filter.name)", reason: "\(error)")
        }
    }
}
