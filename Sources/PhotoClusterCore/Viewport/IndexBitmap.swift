/// A set of integers in `0..<capacity` that finds the nearest member at or above (or at or
/// below) any position in a few word operations, however far it is: one bit per integer, and
/// above those a bit per non-empty word, level by level, up to a single word (three levels for
/// 100,000 integers, four for 10 million).
///
/// Inserting and removing cost one word per level at most. Swift Collections' `BitSet` has no
/// summary levels, so its search for the next member scans every word in between: a job whose
/// finished photos leave a wide gap around the viewport's centre would pay for the gap on
/// every take.
public struct IndexBitmap: Sendable, Equatable {
    /// `levels[0]` holds one bit per integer; `levels[k + 1]` one bit per word of `levels[k]`
    /// that is not zero. The last level is a single word.
    private var levels: [[UInt64]]
    public let capacity: Int
    public private(set) var count = 0

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
        var levels: [[UInt64]] = []
        var bits = max(1, self.capacity)
        repeat {
            let words = (bits + 63) / 64
            levels.append(Array(repeating: 0, count: words))
            bits = words
        } while bits > 1
        self.levels = levels
    }

    public var isEmpty: Bool { count == 0 }

    public func contains(_ value: Int) -> Bool {
        guard value >= 0 && value < capacity else { return false }
        return levels[0][value >> 6] & (1 << UInt64(value & 63)) != 0
    }

    /// Adds `value`; false when it was already there.
    @discardableResult
    public mutating func insert(_ value: Int) -> Bool {
        precondition(value >= 0 && value < capacity, "\(value) is outside 0..<\(capacity)")
        var position = value
        for level in levels.indices {
            let word = position >> 6
            let bit: UInt64 = 1 << UInt64(position & 63)
            let before = levels[level][word]
            if before & bit != 0 {
                // Already set: at level 0 the value was there; above, the summary already knew.
                if level == 0 { return false }
                break
            }
            levels[level][word] = before | bit
            // A word that held something already is known to the level above.
            if before != 0 { break }
            position = word
        }
        count += 1
        return true
    }

    /// Takes `value` out; false when it was not there.
    @discardableResult
    public mutating func remove(_ value: Int) -> Bool {
        guard contains(value) else { return false }
        var position = value
        for level in levels.indices {
            let word = position >> 6
            let after = levels[level][word] & ~(1 << UInt64(position & 63))
            levels[level][word] = after
            // A word that still holds something stays known to the level above.
            if after != 0 { break }
            position = word
        }
        count -= 1
        return true
    }

    /// The smallest member at or above `value`.
    public func first(atOrAbove value: Int) -> Int? {
        guard value < capacity else { return nil }
        var position = max(0, value)
        var level = 0
        // Climb until a word holds a member at or after the position, then descend to it.
        while level < levels.count {
            let word = position >> 6
            guard word < levels[level].count else { return nil }
            let bits = levels[level][word] & (UInt64.max << UInt64(position & 63))
            if bits != 0 {
                var found = word << 6 | bits.trailingZeroBitCount
                while level > 0 {
                    level -= 1
                    found = found << 6 | levels[level][found].trailingZeroBitCount
                }
                return found
            }
            level += 1
            position = word + 1
        }
        return nil
    }

    /// The largest member at or below `value`.
    public func last(atOrBelow value: Int) -> Int? {
        guard value >= 0, capacity > 0 else { return nil }
        var position = min(value, capacity - 1)
        var level = 0
        while level < levels.count {
            let word = position >> 6
            let bits = levels[level][word] & (UInt64.max >> UInt64(63 - position & 63))
            if bits != 0 {
                var found = word << 6 | (63 - bits.leadingZeroBitCount)
                while level > 0 {
                    level -= 1
                    found = found << 6 | (63 - levels[level][found].leadingZeroBitCount)
                }
                return found
            }
            guard word > 0 else { return nil }
            level += 1
            position = word - 1
        }
        return nil
    }

    /// How many members lie in `range`: a population count of the words it covers.
    public func count(in range: ClosedRange<Int>) -> Int {
        let low = max(0, range.lowerBound)
        let high = min(capacity - 1, range.upperBound)
        guard low <= high else { return 0 }
        if low == 0 && high == capacity - 1 { return count }
        var total = 0
        for word in (low >> 6)...(high >> 6) {
            var bits = levels[0][word]
            if word == low >> 6 { bits &= UInt64.max << UInt64(low & 63) }
            if word == high >> 6 { bits &= UInt64.max >> UInt64(63 - high & 63) }
            total += bits.nonzeroBitCount
        }
        return total
    }
}
