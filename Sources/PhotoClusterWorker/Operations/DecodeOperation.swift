import Foundation
import PhotoClusterCore
import PhotoClusterImaging

/// Turns the downloaded bytes into RGBA pixels (the pixel cap is checked from the header
/// first) and turns them upright by their EXIF orientation, so every filter sees the photo as
/// it is shown (unless the job keeps the stored pixels). The header and metadata walk, and a JPEG
/// decode between scans and bands of rows, stop once the photo is cancelled or the stage has run
/// past its time limit (the time waiting for memory not counted); the decoder may allocate no
/// more than the photo's grant leaves it.
///
/// When the chain starts with `resize` or `thumbnail`, the decode applies it: the photo's box
/// step happens while it is decoded (JPEG at a reduced DCT scale, then area averaging as rows
/// arrive; no full-size image), it is turned upright (cheap once small), resampled by the
/// filter's kernel for the last factor of two to four, and cut as the filter says. The result is
/// the first filter's, cached under its own key.
final class DecodeOperation: CPUStageOperation, @unchecked Sendable {
    private let maxPixels: Int
    private let limit: TimeInterval
    private let cache: StageCache
    private let admission: PhotoAdmission
    private let report: StageReporter

    init(
        work: PhotoWork, maxPixels: Int, limit: TimeInterval, cache: StageCache, admission: PhotoAdmission, report: StageReporter,
        priority: ThreadPriority
    ) {
        self.maxPixels = maxPixels
        self.limit = limit
        self.cache = cache
        self.admission = admission
        self.report = report
        super.init(work: work, priority: priority)
        name = "decode \(work.graph.name)"
    }

    override func runStage() {
        guard !isCancelled, work.shouldContinue, let bytes = work.read({ $0.downloaded }) else { return }
        #if DEBUG
        CrashHook.beforeDecoding(work.graph.url)
        #endif
        // The header and metadata walk runs within the stage's time limit and stops on cancel;
        // a file over its caps fails here, with the figure.
        let cancelled = { [work] in work.isCancelled }
        let headerStarted = Date()
        let headerDeadline = StageDeadline(limit: limit)
        let header: ImageHeader?
        do {
            header = try ImageCodec.inspect(bytes, shouldStop: { cancelled() || headerDeadline.hasPassed })
        } catch is DecodeStopped {
            return stopped(cancelled: cancelled())
        } catch let error as ImageCodecError where error.kind == .tooLarge {
            return work.fail(stage: .decode, name: "decode", reason: "\(error)")
        } catch {
            header = nil  // not an image: the decode below says so, as it always has
        }
        let headerSeconds = Date().timeIntervalSince(headerStarted)
        // Waits for room in the memory budget before any pixel is allocated. A header that cannot
        // be read, or a source over the pixel cap, fails in the decode below as it always has.
        if let header, header.width.multipliedReportingOverflow(by: header.height).partialValue <= maxPixels {
            let start = PhotoPeak.Start.encoded(
                header: header, byteCount: bytes.count, decoderBytesPerPixel: PhotoPeak.decoderBytesPerPixel(bytes, header: header),
                upright: work.variant.upright)
            guard admission.admit(work, start: start, firstFilter: work.reducesOnLoad ? 1 : 0, stage: .decode, stageName: "decode") else { return }
            #if DEBUG
            CrashHook.afterAdmission(work.graph.url)
            #endif
        }
        let started = Date()
        // The duration the worker reports for the stage, and the task stream's bar, are one reading.
        var measured: TimeInterval?
        defer { work.recordSpan(.decode, name: "decode", started: started, seconds: measured) }
        // The time waiting for memory is not the stage's; the header's is.
        let deadline = StageDeadline(limit: max(0, limit - headerSeconds))
        do {
            var options = DecodeOptions(maxPixels: maxPixels, fastDCT: work.graph.fastDct, toSRGB: work.variant.srgb)
            let reduction = try work.reducesOnLoad ? plan(for: bytes, header: header) : nil
            options.reduceTo = reduction?.storedTarget
            options.decoderMemoryLimit = decoderMemoryLimit(bytes: bytes.count, header: header, reducedTo: reduction?.storedTarget)
            let decoded = try ImageCodec.decode(bytes, header: header, options: options, shouldStop: { cancelled() || deadline.hasPassed })
            let orientation = decoded.metadata.orientation
            let orient = work.variant.upright && orientation != .up
            guard var image = orient ? decoded.image.upright(orientation) : decoded.image else {
                return work.fail(stage: .decode, name: "decode", reason: "no memory to turn a \(decoded.image.width)x\(decoded.image.height) photo upright")
            }
            if let reduction {
                // Reduced: the kernel and the cut are left. Not reduced (a photo smaller than the box): all of it.
                let check = { cancelled() }
                image = try reduction.filter.finish(reduction.plan, from: image, isCancelled: check)
            }
            let origin = PixelOrigin(
                format: decoded.format, metadata: decoded.metadata, isGray: decoded.isGray, orientationApplied: orient,
                colourConverted: decoded.isConverted)
            let cached = cache.put(work.pixelsKey(filtersDone: reduction == nil ? 0 : 1), .image(image, origin))
            work.update {
                $0.image = image
                $0.imageIsShared = cached
                $0.origin = origin
                $0.downloaded = nil
                $0.lastFinished = .decode
            }
            let sourcePixels = decoded.header.width * decoded.header.height
            measured = Date().timeIntervalSince(started)
            report.stageFinished(work, .decode, bytes: 0, pixels: UInt64(max(sourcePixels, image.pixelCount)), seconds: measured!)
        } catch is FilterCancelled {
            return
        } catch is DecodeStopped {
            guard deadline.hasPassed else { return }
            stopped(cancelled: cancelled())
        } catch {
            work.fail(stage: .decode, name: reduction(failed: error), reason: "\(error)")
        }
    }

    /// A stop that was not a cancel is the stage's time limit.
    private func stopped(cancelled: Bool) {
        guard !cancelled else { return }
        report.incident(work, .stageTimedOut(stage: .decode, name: "decode", limit: limit))
        work.fail(stage: .decode, name: "decode", reason: "decode \(StageTimeLimit.overrun(limit))")
    }

    /// What the decoder may allocate for itself: the photo's grant less the downloaded bytes and
    /// the decoded image, which the grant holds besides (nil without a grant). A decoder that
    /// needs more than the estimate said fails the photo instead of growing past its grant.
    private func decoderMemoryLimit(bytes: Int, header: ImageHeader?, reducedTo: ImageSize?) -> Int? {
        guard let grant = work.read({ $0.memoryGrant }), let header else { return nil }
        let output = reducedTo ?? ImageSize(width: header.width, height: header.height)
        let left = grant.bytes - bytes - FilterMemory.imageBytes(output)
        return max(left, Self.leastDecoderMemory)
    }

    /// What a decoder always gets: its tables and row buffers.
    static let leastDecoderMemory = 16 << 20

    /// The chain's first filter's plan for this photo, from its header: the size the decoder
    /// shrinks to as stored (before the orientation turns it), nil when the kernel does it all.
    private func plan(for bytes: Data, header known: ImageHeader?) throws -> (filter: ReducingFilter, plan: ReductionPlan, storedTarget: ImageSize?) {
        let first = work.filters[0]
        let filter = first.stage as! ReducingFilter  // `reducesOnLoad` checked the type
        let header = try known ?? ImageCodec.inspect(bytes)
        let orientation = work.variant.upright ? header.metadata.orientation : .up
        let upright = orientation.uprightSize(width: header.width, height: header.height)
        let plan = filter.plan(for: ImageSize(width: upright.width, height: upright.height), parameters: first.parameters)
        let stored = ImageSize(width: header.width, height: header.height)
        return (filter, plan, plan.loadTarget(stored: stored, format: header.format, swapsAxes: orientation.swapsAxes))
    }

    /// A failure of the first filter's part is the filter's, as it would be in its own stage.
    private func reduction(failed error: Error) -> String {
        error is FilterFailure ? "filter:\(work.filters[0].name)" : "decode"
    }
}
