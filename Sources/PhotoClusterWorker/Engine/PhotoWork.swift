import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto

/// What a photo's stages hand one another, and how the photo ended.
///
/// Each stage reads its dependency's output and writes its own; the lock makes those hand-overs
/// safe without relying on the queue's ordering guarantees. A cancel from the worker's loop
/// thread takes no lock (see `CancellationFlag`).
final class PhotoWork: @unchecked Sendable {
    struct Key: Hashable, Sendable {
        let job: String
        let photo: UInt32
    }

    enum Outcome: Sendable {
        case encoded(data: Data, format: ImageFormat, width: Int, height: Int)
        case failed(stage: Photocluster_V1_Stage, stageName: String, reason: String, transient: Bool)
        case cancelled(lastFinished: Photocluster_V1_Stage)
    }

    struct Contents {
        var downloaded: Data?
        var image: RGBAImage?
        /// The image is also held by the cache, so a stage must copy it before changing it.
        var imageIsShared = false
        var origin: PixelOrigin?
        var lastFinished: Photocluster_V1_Stage = .unspecified
        var outcome: Outcome?
        /// Where the worker stored the encoded output, for a graph with an output place (see
        /// `StoreOperation`); nil until it is stored.
        var storedAt: [String]?
        /// The stages that ran, with their times, in the order they ended (the task stream's bars).
        var spans: [Photocluster_V1_StageSpan] = []
        /// The photo passed its admission (memory budget and output cap; see `PhotoAdmission`).
        var admitted = false
        /// The bytes of the worker's memory budget it holds until it ends.
        var memoryGrant: MemoryBudget.Grant?
        /// Its priority band now (the graph's, then the viewport's changes).
        var band: Photocluster_V1_PriorityBand?
    }

    let graph: Photocluster_V1_PhotoGraph
    let filters: [ConfiguredFilter]
    var key: Key { Key(job: graph.jobID, photo: graph.photoIndex) }

    /// The chain starts with `resize` or `thumbnail`, which the decode applies while shrinking
    /// (see `DecodeOperation`): the decode's result is the first filter's.
    var reducesOnLoad: Bool { filters.first?.stage is ReducingFilter }

    /// How this photo's pixels are decoded.
    var variant: PixelVariant { PixelVariant(
            fastDCT: graph.fastDct, upright: !graph.image.noAutoOrient, reducedOnLoad: reducesOnLoad, srgb: graph.image.colour == .srgb) }

    /// The cache key of the pixels after the first `filtersDone` filters: the decoded image for 0.
    func pixelsKey(filtersDone: Int) -> StageCache.Key {
        filtersDone == 0
            ? .decoded(url: graph.url, variant: variant)
            : .filtered(url: graph.url, variant: variant, prefix: filters.prefix(filtersDone).map(\.identifier))
    }

    private let contents = LockedBox(Contents())
    private let cancelled = CancellationFlag()

    /// The photo's job's gate: stages wait there while the job is suspended.
    let gate: JobGate

    init(graph: Photocluster_V1_PhotoGraph, filters: [ConfiguredFilter], gate: JobGate = .alwaysOpen) {
        self.graph = graph
        self.filters = filters
        self.gate = gate
    }

    /// Waits while the photo's job is suspended, unless the photo is cancelled.
    func waitWhileSuspended() {
        gate.waitWhileClosed(unless: { isCancelled })
    }

    var isCancelled: Bool { cancelled.isRaised }

    func markCancelled() { cancelled.raise() }

    func read<T>(_ body: (Contents) -> T) -> T { contents.withLock { body($0) } }

    func update(_ body: (inout Contents) -> Void) { contents.withLock { body(&$0) } }

    /// Records a failure unless the photo already has an outcome; the first one wins.
    func fail(stage: Photocluster_V1_Stage, name: String, reason: String, transient: Bool = false) {
        contents.withLock { c in
            guard c.outcome == nil else { return }
            c.outcome = .failed(stage: stage, stageName: name, reason: reason, transient: transient)
            c.image = nil
            c.downloaded = nil
        }
    }

    /// The stage that should run next has what it needs and nothing stopped the photo.
    var shouldContinue: Bool {
        !isCancelled && contents.withLock { $0.outcome == nil }
    }
}

extension PhotoWork: MemoryPriority {
    /// Visible first, then prefetch, then the rest, by the band the viewport gave it last.
    var memoryRank: Int {
        let band = read { $0.band } ?? graph.band
        return MemoryBudget.rank(visible: band == .visible, prefetch: band == .prefetch)
    }
}
