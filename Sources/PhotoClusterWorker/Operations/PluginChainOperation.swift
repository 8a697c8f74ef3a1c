import Foundation
import PhotoClusterCore
import PhotoClusterPluginHost

/// Runs consecutive plugin filters of the photo's chain (`range`) in a plugin host, in one
/// hand-off: the pixels go into memory the host shares, the filters run there one after the
/// other, and the result comes back. Its output is cached as the result of the chain's prefix up
/// to the range's end.
///
/// The host is a child process: a filter that crashes it fails this photo with a reason that
/// names the filter, its plugin and the signal; a filter that runs past the time limit, or on
/// after a cancel, has its host killed. Neither costs the worker or its other photos anything.
final class PluginChainOperation: Operation, @unchecked Sendable {
    private let work: PhotoWork
    private let range: Range<Int>
    private let limit: TimeInterval
    private let cache: StageCache
    private let admission: PhotoAdmission
    private let report: StageReporter

    init(work: PhotoWork, range: Range<Int>, limit: TimeInterval, cache: StageCache, admission: PhotoAdmission, report: StageReporter) {
        self.work = work
        self.range = range
        self.limit = limit
        self.cache = cache
        self.admission = admission
        self.report = report
        super.init()
        name = "plugins \(work.filters[range].map(\.name).joined(separator: ",")) \(work.graph.name)"
    }

    override func main() {
        work.waitWhileSuspended()
        guard !isCancelled, work.shouldContinue, let (input, shared) = work.read({ c in c.image.map { ($0, c.imageIsShared) } }) else { return }
        guard admission.admit(work, start: .decoded(input.size, shared: shared), firstFilter: range.lowerBound, stage: .filter, stageName: "filter:\(work.filters[range.lowerBound].name)")
        else { return }
        let filters = work.filters[range]
        let stages = filters.compactMap { $0.stage as? HostedFilterStage }
        guard let pool = stages.first?.pool, stages.count == filters.count else { return }
        let chain = zip(stages, filters).map { stage, filter in stage.call(filter.parameters) }
        let started = Date()
        var measured: TimeInterval?
        defer { work.recordSpan(.filter, name: "filter:" + filters.map(\.name).joined(separator: "+"), started: started, seconds: measured) }
        do {
            let output = try pool.run(chain, on: input, mayOverwrite: !shared, limit: limit) {
                work.isCancelled
            }
            let origin = work.read { $0.origin }
            let cached = origin.map { cache.put(work.pixelsKey(filtersDone: range.upperBound), .image(output, $0)) } ?? false
            let isLast = range.upperBound == work.filters.count
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
            return
        } catch let failure as PluginHostFailure {
            report.incident(work, .plugin(failure))
            // A host killed for running on after a cancel: the photo ends cancelled.
            if case .ignoredCancellation = failure.kind { return }
            work.fail(stage: .filter, name: "filter:\(failure.filter)", reason: failure.description, transient: failure.isTransient)
        } catch let failure as FilterFailure {
            work.fail(stage: .filter, name: "filter:\(failure.filter)", reason: "\(failure)")
        } catch {
            work.fail(stage: .filter, name: "filter:\(filters.first!.name)", reason: "\(error)")
        }
    }
}
