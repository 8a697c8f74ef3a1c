import Foundation
import PhotoClusterCore
import PhotoClusterImaging

/// Intermediate results a worker keeps so a photo sent again resumes at its first missing
/// stage: downloaded bytes, decoded pixels, and the output of each filter prefix (the engine
/// removes a photo's pixels once it has finished). Bounded in bytes; the least recently used
/// entry goes first.
///
/// Entries are immutable once stored: a stage that filters a cached image in place copies it
/// first. The lock guards the table and the clock.
public final class StageCache: @unchecked Sendable {
    public enum Entry {
        case bytes(Data)
        case image(RGBAImage, PixelOrigin)

        var cost: Int {
            switch self {
            case .bytes(let data): return data.count
            case .image(let image, _): return image.byteCount
            }
        }
    }

    /// What a stored entry is the result of.
    public enum Key: Hashable, Sendable {
        case downloaded(url: String)
        case decoded(url: String, variant: PixelVariant)
        /// Identifiers of the first filters of the chain, in order.
        case filtered(url: String, variant: PixelVariant, prefix: [String])
    }

    private struct Slot {
        let entry: Entry
        var lastUse: UInt64
    }

    public let capacityBytes: Int
    private let state = LockedBox((slots: [Key: Slot](), used: 0, clock: UInt64(0)))

    public init(capacityBytes: Int) {
        self.capacityBytes = max(0, capacityBytes)
    }

    public var usedBytes: Int { state.withLock { $0.used } }
    public var count: Int { state.withLock { $0.slots.count } }

    public func get(_ key: Key) -> Entry? {
        state.withLock { s in
            s.clock += 1
            guard var slot = s.slots[key] else { return nil }
            slot.lastUse = s.clock
            s.slots[key] = slot
            return slot.entry
        }
    }

    public func remove(_ key: Key) {
        state.withLock { s in
            if let old = s.slots.removeValue(forKey: key) { s.used -= old.entry.cost }
        }
    }

    /// The largest entry a cache of `capacityBytes` keeps.
    public static func entryLimit(capacityBytes: Int) -> Int { max(0, capacityBytes) / 4 }

    /// Stores an entry, evicting the least recently used ones to make room. An entry larger
    /// than a quarter of the cache is not kept: it would flush everything else. True when kept
    /// (an image that is not kept stays its stage's own, so the next stage may write over it).
    @discardableResult
    public func put(_ key: Key, _ entry: Entry) -> Bool {
        let cost = entry.cost
        guard cost <= Self.entryLimit(capacityBytes: capacityBytes) else { return false }
        state.withLock { s in
            s.clock += 1
            if let old = s.slots.removeValue(forKey: key) { s.used -= old.entry.cost }
            while s.used + cost > capacityBytes, let victim = s.slots.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                s.slots.removeValue(forKey: victim.key)
                s.used -= victim.value.entry.cost
            }
            s.slots[key] = Slot(entry: entry, lastUse: s.clock)
            s.used += cost
        }
        return true
    }
}
