import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto

/// Lets a photo allocate its pixels only when the worker's memory budget has room for its peak
/// (`PhotoPeak`) and its result is not larger than `--max-output-pixels`. The first of a photo's
/// decode, filter and encode stages to run asks, before it allocates anything; the grant is
/// given back when the photo ends (`WorkerEngine.complete`).
final class PhotoAdmission: Sendable {
    /// Nil: no memory budget (only the output cap applies).
    let budget: MemoryBudget?
    let maxOutputPixels: Int
    /// Images of at most this many bytes stay in the stage cache (see `StageCache.put`).
    let cacheEntryLimit: Int
    /// Told of each grant as it is given (from the stage's thread), so the coordinator learns
    /// what a photo that kills its worker had been granted.
    let onAdmitted: @Sendable (PhotoWork, Int) -> Void

    init(budget: MemoryBudget?, maxOutputPixels: Int, cacheEntryLimit: Int, onAdmitted: @escaping @Sendable (PhotoWork, Int) -> Void = { _, _ in }) {
        self.budget = budget
        self.maxOutputPixels = maxOutputPixels
        self.cacheEntryLimit = cacheEntryLimit
        self.onAdmitted = onAdmitted
    }

    /// Admits the photo unless it already is. False when it must not go on: it failed (the reason
    /// is recorded, naming the figure and the option) or was cancelled while it waited.
    func admit(_ work: PhotoWork, start: PhotoPeak.Start, firstFilter: Int, stage: Photocluster_V1_Stage, stageName: String) -> Bool {
        if work.read({ $0.admitted }) { return true }
        let peak = estimate(work, start: start, firstFilter: firstFilter)
        let over = Self.refusal(peak: peak, budget: budget.map { ($0.bytes, $0.limit) }, maxOutputPixels: maxOutputPixels)
        if let over {
            if over.memory { budget?.recordRefusal() }
            work.fail(stage: stage, name: stageName, reason: over.reason)
            return false
        }
        guard let budget else {
            work.update { $0.admitted = true }
            return true
        }
        switch budget.admit(peak.bytes, rank: work.memoryRank, priority: work, isCancelled: { work.isCancelled }) {
        case .admitted(let grant):
            work.update {
                $0.admitted = true
                $0.memoryGrant = grant
            }
            onAdmitted(work, grant.bytes)
            return true
        case .cancelled:
            return false
        case .overBudget:
            work.fail(stage: stage, name: stageName, reason: Self.overBudget(peak, budget: budget.bytes))
            return false
        }
    }

    /// Gives back what the photo held.
    func release(_ work: PhotoWork) {
        guard let budget, let grant = work.read({ $0.memoryGrant }) else { return }
        work.update { $0.memoryGrant = nil }
        budget.release(grant)
    }

    func estimate(_ work: PhotoWork, start: PhotoPeak.Start, firstFilter: Int) -> PhotoPeak {
        let format: ImageFormat
        switch work.graph.format {
        case .jpeg: format = .jpeg
        case .png: format = .png
        case .webp: format = .webp
        case .avif: format = .avif
        default:
            if case .encoded(let header, _, _, _) = start { format = header.format.keptAs } else { format = work.read { $0.origin?.format.keptAs } ?? .png }
        }
        return PhotoPeak.estimate(
            start: start, filters: work.filters, firstFilter: firstFilter, reducesOnLoad: work.reducesOnLoad,
            fusedStart: max(firstFilter, work.filters.pointFilterTailStart), format: format, lossless: work.graph.image.lossless,
            cacheEntryLimit: cacheEntryLimit)
    }

    /// Why a photo of this peak is refused at once, if it is.
    static func refusal(peak: PhotoPeak, budget: (bytes: Int, limit: MemoryLimit)?, maxOutputPixels: Int) -> (reason: String, memory: Bool)? {
        if let budget, peak.bytes > budget.bytes { return (overBudget(peak, budget: budget.bytes), true) }
        let pixels = peak.output.width.multipliedReportingOverflow(by: peak.output.height)
        if pixels.overflow || pixels.partialValue > maxOutputPixels {
            return ("its result would be \(peak.output) (\(megapixels(pixels.overflow ? Int.max : pixels.partialValue))), over this worker's limit of \(megapixels(maxOutputPixels)) (--max-output-pixels)", false)
        }
        return nil
    }

    static func overBudget(_ peak: PhotoPeak, budget: Int) -> String {
        "needs \(ByteCount(peak.bytes)) at its peak (\(peak.step), \(peak.largestImage) pixels), over this worker's memory budget of \(ByteCount(budget)) (--memory-limit)"
    }

    static func megapixels(_ pixels: Int) -> String {
        let mp = Double(pixels) / 1e6
        return mp >= 10 ? "\(Int(mp.rounded())) MP" : String(format: "%.1f MP", mp)
    }
}
