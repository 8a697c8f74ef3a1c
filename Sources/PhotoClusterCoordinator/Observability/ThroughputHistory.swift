import Foundation

/// What the cluster finished, second by second, for the last ten minutes: the source of every
/// rate the coordinator reports (`cluster top`, the dashboard's charts, status replies).
///
/// A value type with no clock of its own: the coordinator's loop owns it, counts into the open
/// second as results arrive, and closes the second once a second.
public struct ThroughputHistory: Sendable {
    /// One second of work. Per-worker and per-job entries exist only for those that did some.
    public struct Sample: Sendable {
        public let start: Date
        public var photos = 0
        public var pixels: UInt64 = 0
        public var photosByWorker: [String: Int] = [:]
        public var pixelsByWorker: [String: UInt64] = [:]
        public var photosByJob: [String: Int] = [:]
        public var pixelsByJob: [String: UInt64] = [:]
    }

    public static let capacity = 600
    /// Closed seconds, oldest first.
    public private(set) var samples: [Sample] = []
    private var open: Sample

    public init(now: Date = Date()) {
        open = Sample(start: now)
    }

    /// A photo succeeded on `worker` (photos/s counts successes).
    public mutating func photoSucceeded(job: String, worker: String?) {
        open.photos += 1
        if let worker { open.photosByWorker[worker, default: 0] += 1 }
    }

    /// A photo of `job` settled, whatever the outcome (the job's own rate counts every end).
    public mutating func photoSettled(job: String) {
        open.photosByJob[job, default: 0] += 1
    }

    /// A worker decoded `pixels` for a photo of `job` (megapixels/s counts decoded pixels).
    public mutating func decoded(pixels: UInt64, job: String, worker: String) {
        open.pixels += pixels
        open.pixelsByWorker[worker, default: 0] += pixels
        open.pixelsByJob[job, default: 0] += pixels
    }

    /// Closes the open second and starts the next.
    public mutating func closeSecond(at now: Date = Date()) {
        samples.append(open)
        if samples.count > Self.capacity { samples.removeFirst(samples.count - Self.capacity) }
        open = Sample(start: now)
    }

    /// Photos and megapixels per second over the last `window` seconds, for everything or for
    /// one worker or job (`nil` key: the whole cluster).
    public func rates(window: TimeInterval, worker: String? = nil, job: String? = nil, now: Date = Date()) -> (photos: Double, megapixels: Double) {
        let since = now.addingTimeInterval(-window)
        var photos = 0
        var pixels: UInt64 = 0
        var earliest = open.start
        for sample in samples.reversed() {
            guard sample.start >= since else { break }
            earliest = sample.start
            let (p, px) = Self.counts(of: sample, worker: worker, job: job)
            photos += p
            pixels += px
        }
        let (p, px) = Self.counts(of: open, worker: worker, job: job)
        photos += p
        pixels += px
        // Divide by the time actually covered, so a young coordinator does not under-report.
        let span = max(1, min(window, now.timeIntervalSince(earliest)))
        return (Double(photos) / span, Double(pixels) / 1e6 / span)
    }

    private static func counts(of sample: Sample, worker: String?, job: String?) -> (Int, UInt64) {
        if let worker { return (sample.photosByWorker[worker] ?? 0, sample.pixelsByWorker[worker] ?? 0) }
        if let job { return (sample.photosByJob[job] ?? 0, sample.pixelsByJob[job] ?? 0) }
        return (sample.photos, sample.pixels)
    }
}
