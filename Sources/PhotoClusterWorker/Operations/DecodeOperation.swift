import Foundation
import PhotoClusterCore
import PhotoClusterImaging

/// Turns the downloaded bytes into RGBA pixels; the pixel cap is checked from the header first.
final class DecodeOperation: Operation, @unchecked Sendable {
    private let work: PhotoWork
    private let maxPixels: Int
    private let cache: StageCache
    private let report: StageReporter

    init(work: PhotoWork, maxPixels: Int, cache: StageCache, report: StageReporter) {
        self.work = work
        self.maxPixels = maxPixels
        self.cache = cache
        self.report = report
        super.init()
        name = "decode \(work.graph.name)"
    }

    override func main() {
        guard !isCancelled, work.shouldContinue, let bytes = work.read({ $0.downloaded }) else { return }
        let started = Date()
        do {
            let decoded = try ImageCodec.decode(bytes, maxPixels: maxPixels, fastDCT: work.graph.fastDct)
            cache.put(work.pixelsKey(filtersDone: 0), .image(decoded.image, decoded.format))
            work.update {
                $0.image = decoded.image
                $0.imageIsShared = true
                $0.inputFormat = decoded.format
                $0.downloaded = nil
                $0.lastFinished = .decode
            }
            report.stageFinished(work, .decode, bytes: 0, pixels: UInt64(decoded.image.pixelCount), seconds: Date().timeIntervalSince(started))
        } catch {
            work.fail(stage: .decode, name: "decode", reason: "\(error)")
        }
    }
}
