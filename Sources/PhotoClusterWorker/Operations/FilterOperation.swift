import Foundation
import PhotoClusterCore

/// Runs one configured filter. The filter checks for cancellation between bands of rows.
final class FilterOperation: Operation, @unchecked Sendable {
    private let work: PhotoWork
    private let filter: ConfiguredFilter
    private let isLast: Bool
    private let report: StageReporter

    init(work: PhotoWork, filter: ConfiguredFilter, isLast: Bool, report: StageReporter) {
        self.work = work
        self.filter = filter
        self.isLast = isLast
        self.report = report
        super.init()
        name = "filter \(filter.name) \(work.graph.name)"
    }

    override func main() {
        guard !isCancelled, work.shouldContinue, let image = work.read({ $0.image }) else { return }
        let started = Date()
        do {
            let output = try filter.stage.apply(to: image, parameters: filter.parameters) { [unowned self] in
                isCancelled || work.isCancelled
            }
            work.update { $0.image = output }
            if isLast {
                work.update { $0.lastFinished = .filter }
                report.stageFinished(work, .filter, bytes: 0, pixels: UInt64(output.pixelCount), seconds: Date().timeIntervalSince(started))
            }
        } catch is FilterCancelled {
            return
        } catch {
            work.fail(stage: .filter, name: "filter:\(filter.name)", reason: "\(error)")
        }
    }
}
