import Foundation
import PhotoClusterCore
import PhotoClusterImaging

/// Turns the downloaded bytes into RGBA pixels (the pixel cap is checked from the header
/// first) and turns them upright by their EXIF orientation, so every filter sees the photo as
/// it is shown (unless the job keeps the stored pixels).
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
        #if DEBUG
        CrashHook.beforeDecoding(work.graph.url)
        #endif
        let started = Date()
        do {
            let decoded = try ImageCodec.decode(bytes, options: DecodeOptions(maxPixels: maxPixels, fastDCT: work.graph.fastDct))
            let orientation = decoded.metadata.orientation
            let orient = work.variant.upright && orientation != .up
            guard let image = orient ? decoded.image.upright(orientation) : decoded.image else {
                return work.fail(stage: .decode, name: "decode", reason: "no memory to turn a \(decoded.image.width)x\(decoded.image.height) photo upright")
            }
            let origin = PixelOrigin(format: decoded.format, metadata: decoded.metadata, isGray: decoded.isGray, orientationApplied: orient)
            cache.put(work.pixelsKey(filtersDone: 0), .image(image, origin))
            work.update {
                $0.image = image
                $0.imageIsShared = true
                $0.origin = origin
                $0.downloaded = nil
                $0.lastFinished = .decode
            }
            report.stageFinished(work, .decode, bytes: 0, pixels: UInt64(image.pixelCount), seconds: Date().timeIntervalSince(started))
        } catch {
            work.fail(stage: .decode, name: "decode", reason: "\(error)")
        }
    }
}
