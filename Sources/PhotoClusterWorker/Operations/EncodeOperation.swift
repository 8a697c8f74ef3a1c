import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto

/// Encodes the filtered pixels in the requested format (or the input's).
final class EncodeOperation: Operation, @unchecked Sendable {
    private let work: PhotoWork
    private let report: StageReporter

    init(work: PhotoWork, report: StageReporter) {
        self.work = work
        self.report = report
        super.init()
        name = "encode \(work.graph.name)"
    }

    override func main() {
        guard !isCancelled, work.shouldContinue,
            let (image, inputFormat) = work.read({ c in c.image.flatMap { i in c.inputFormat.map { (i, $0) } } })
        else { return }
        let format: ImageFormat
        switch work.graph.format {
        case .jpeg: format = .jpeg
        case .png: format = .png
        default: format = inputFormat
        }
        do {
            let started = Date()
            let quality = work.graph.quality == 0 ? 90 : Int(work.graph.quality)
            let data = try ImageCodec.encode(image, as: format, quality: quality)
            guard !isCancelled else { return }
            report.stageFinished(work, .encode, bytes: UInt64(data.count), pixels: 0, seconds: Date().timeIntervalSince(started))
            work.update {
                $0.outcome = .encoded(data: data, format: format, width: image.width, height: image.height)
                $0.image = nil
                $0.lastFinished = .encode
            }
        } catch {
            work.fail(stage: .encode, name: "encode", reason: "\(error)")
        }
    }
}
