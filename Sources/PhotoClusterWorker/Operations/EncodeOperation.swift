import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto

/// Encodes the filtered pixels in the requested format (or the input's).
///
/// The chain's trailing point filters (`fused`) run here, band by band just before each band is
/// compressed, instead of as filter operations of their own: that saves a pass over the whole
/// image and an image's worth of memory (see `PointFilter`). The encode checks for cancellation
/// and its time limit between bands.
final class EncodeOperation: CPUStageOperation, @unchecked Sendable {
    private let fused: [ConfiguredFilter]
    private let fusedStart: Int
    private let limit: TimeInterval
    private let admission: PhotoAdmission
    private let report: StageReporter

    init(
        work: PhotoWork, fused: [ConfiguredFilter], fusedStart: Int, limit: TimeInterval, admission: PhotoAdmission, report: StageReporter,
        priority: ThreadPriority
    ) {
        self.fused = fused
        self.fusedStart = fusedStart
        self.limit = limit
        self.admission = admission
        self.report = report
        super.init(work: work, priority: priority)
        name = "encode \(work.graph.name)"
    }

    override func runStage() {
        guard !isCancelled, work.shouldContinue,
            let (image, origin) = work.read({ c in c.image.flatMap { i in c.origin.map { (i, $0) } } })
        else { return }
        guard admission.admit(work, start: .decoded(image.size, shared: true), firstFilter: fusedStart, stage: .encode, stageName: "encode") else { return }
        let format: ImageFormat
        switch work.graph.format {
        case .jpeg: format = .jpeg
        case .png: format = .png
        case .webp: format = .webp
        case .avif: format = .avif
        default: format = origin.format.keptAs
        }
        let filterTime = FusedFilterClock(fused)
        let deadline = StageDeadline(limit: limit)
        let cancelled = { [work] in work.isCancelled }
        let started = Date()
        // The durations the worker reports for the stages, and the task stream's bars, are one reading.
        var measured: TimeInterval?
        defer { recordSpans(started: started, seconds: measured, filterTime: filterTime) }
        do {
            let options = encodeOptions(for: image, from: origin, as: format)
            let data = try ImageCodec.encode(
                image, as: format, options: options, transform: filterTime.timedTransform,
                shouldStop: { cancelled() || deadline.hasPassed })
            guard !isCancelled else { return }
            let seconds = Date().timeIntervalSince(started)
            measured = seconds
            if !fused.isEmpty {
                report.stageFinished(work, .filter, bytes: 0, pixels: UInt64(image.pixelCount), seconds: filterTime.seconds)
            }
            report.stageFinished(work, .encode, bytes: UInt64(data.count), pixels: 0, seconds: seconds - filterTime.seconds)
            work.update {
                $0.outcome = .encoded(data: data, format: format, width: image.width, height: image.height)
                $0.image = nil
                $0.lastFinished = .encode
            }
        } catch is EncodeStopped {
            guard !cancelled(), deadline.hasPassed else { return }
            report.incident(work, .stageTimedOut(stage: .encode, name: "encode", limit: limit))
            work.fail(stage: .encode, name: "encode", reason: "encode \(StageTimeLimit.overrun(limit))")
        } catch {
            work.fail(stage: .encode, name: "encode", reason: "\(error)")
        }
    }

    /// The task stream's bars: the fused filters first, each for the time it took inside the
    /// encode (its bands ran interleaved with the compression), then the encode's own time.
    private func recordSpans(started: Date, seconds: TimeInterval?, filterTime: FusedFilterClock) {
        var offset = 0.0
        for (filter, seconds) in zip(fused, filterTime.secondsByFilter) where filter.pixelTransform != nil {
            work.recordSpan(.filter, name: "filter:\(filter.name)", started: started + offset, seconds: seconds, fused: true)
            offset += seconds
        }
        work.recordSpan(.encode, name: "encode", started: started + offset, seconds: max(0, (seconds ?? Date().timeIntervalSince(started)) - offset))
    }

    /// Quality, gray and the metadata the job's policy lets through. A photo stored gray is
    /// written gray while its pixels are still gray after the chain.
    private func encodeOptions(for image: RGBAImage, from origin: PixelOrigin, as format: ImageFormat) -> EncodeOptions {
        let graph = work.graph
        let policy = MetadataPolicy(graph.image.metadata)
        let gray = (format == .jpeg || format == .png) && origin.isGray && fused.allSatisfy(\.keepsGray) && image.isGray
        // The profile goes with the pixels it describes: not after a conversion to sRGB, and only
        // onto as many channels as it has (a gray photo made colour by a filter loses it).
        let space = origin.metadata.iccProfile.flatMap(ICCProfile.colourSpace(of:))
        let profileKept = !origin.colourConverted && graph.image.colour != .srgb && space == (gray ? "GRAY" : "RGB ")
        let metadata = policy.outputMetadata(
            from: origin.metadata, orientationApplied: origin.orientationApplied, profileKept: profileKept,
            width: image.width, height: image.height)
        var options = EncodeOptions(
            quality: graph.quality == 0 ? 90 : Int(graph.quality), fastDCT: graph.fastDct, gray: gray, lossless: graph.image.lossless,
            iccProfile: metadata.iccProfile, exif: metadata.exif, xmp: metadata.xmp)
        if graph.image.hasAvifSpeed { options.speed = Int(graph.image.avifSpeed) }
        options.chroma = ChromaSubsampling(graph.image.chroma)
        return options
    }
}

extension ChromaSubsampling {
    init(_ proto: Photocluster_V1_ChromaSubsampling) {
        switch proto {
        case .s420: self = .s420
        case .s422: self = .s422
        case .s444: self = .s444
        default: self = .automatic
        }
    }
}

extension MetadataPolicy {
    init(_ proto: Photocluster_V1_MetadataPolicy) {
        switch proto {
        case .keep: self = .keep
        case .copyright: self = .copyright
        default: self = .strip
        }
    }
}

/// Adds up the time each fused filter takes inside an encode, so the filter and encode stages
/// keep reporting their own durations. Used by one encode on one thread.
private final class FusedFilterClock: @unchecked Sendable {
    private let transforms: [PixelTransform?]
    /// Per fused filter, in the chain's order (0 for one without a pixel transform).
    private(set) var secondsByFilter: [Double]

    init(_ fused: [ConfiguredFilter]) {
        transforms = fused.map(\.pixelTransform)
        secondsByFilter = Array(repeating: 0, count: fused.count)
    }

    var seconds: Double { secondsByFilter.reduce(0, +) }

    var timedTransform: PixelTransform? {
        let present = transforms.indices.filter { transforms[$0] != nil }
        guard !present.isEmpty else { return nil }
        return { [self] source, destination, count in
            var input = source
            for index in present {
                let start = DispatchTime.now().uptimeNanoseconds
                transforms[index]!(input, destination, count)
                secondsByFilter[index] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                input = UnsafePointer(destination)
            }
        }
    }
}
