/// Photos waiting to start, taken in the order a viewport wants them, with a viewport change
/// that costs nothing: no photo moves.
///
/// The planner's order (visible, then prefetch, then the rest; nearer the centre of the visible
/// range first; the lower index first on a tie) is the order of distance from that centre
/// alone, because each band surrounds the one before it: a prefetch photo is farther from the
/// centre than every visible one, and a background photo farther than every prefetch one. So
/// the queue keeps only *which* photos wait (an `IndexBitmap`) and reads the order off their
/// positions, walking outwards from the centre: the nearest waiting photo on each side is a
/// search of a few words. A new viewport moves the centre and the range wanted; the members stay
/// where they are. In viewport mode the walk stops at the edge of visible ∪ prefetch, so photos
/// out of view wait in the queue without being looked at.
public struct ViewportQueue: Sendable {
    private var members: IndexBitmap
    public private(set) var planner: ViewportPlanner
    /// Twice the centre of the visible range (an integer for ranges of either parity).
    private var doubleCentre: Int
    /// The photos the viewport wants started: visible ∪ prefetch, or all of them in batch mode.
    private var wanted: ClosedRange<Int>?

    public init(planner: ViewportPlanner) {
        members = IndexBitmap(capacity: planner.count)
        self.planner = planner
        doubleCentre = 0
        wanted = nil
        follow(planner)
    }

    /// Follows a new viewport: O(1), the members stay put.
    public mutating func follow(_ planner: ViewportPlanner) {
        self.planner = planner
        let visible = planner.viewport.visible
        doubleCentre = visible.lowerBound + visible.upperBound
        if planner.runsEverything {
            wanted = planner.count > 0 ? 0...(planner.count - 1) : nil
        } else {
            wanted = planner.viewport.interest(count: planner.count)
        }
    }

    /// Photos waiting, wanted by the viewport or not.
    public var count: Int { members.count }

    /// Waiting photos the viewport wants: a count over visible ∪ prefetch in viewport mode.
    public var wantedCount: Int { wanted.map { members.count(in: $0) } ?? 0 }

    public func contains(_ index: Int) -> Bool { members.contains(index) }

    @discardableResult
    public mutating func insert(_ index: Int) -> Bool { members.insert(index) }

    @discardableResult
    public mutating func remove(_ index: Int) -> Bool { members.remove(index) }

    public mutating func removeAll() { members = IndexBitmap(capacity: planner.count) }

    /// Where a walk through the wanted photos stands: the next candidates are the nearest
    /// members at or below `below` and at or above `above`.
    public struct Walk: Sendable {
        fileprivate var below: Int
        fileprivate var above: Int
    }

    /// A walk from the centre outwards; `next(_:)` yields the wanted photos in start order.
    public func walk() -> Walk {
        Walk(below: doubleCentre >> 1, above: (doubleCentre >> 1) + 1)
    }

    /// The next wanted photo of a walk, nil when none is left. Removing the photo it returned
    /// (or any photo it has passed) leaves the walk valid.
    public func next(_ walk: inout Walk) -> Int? {
        guard let wanted else { return nil }
        let lower = walk.below >= wanted.lowerBound ? members.last(atOrBelow: walk.below).flatMap { $0 >= wanted.lowerBound ? $0 : nil } : nil
        let upper = walk.above <= wanted.upperBound ? members.first(atOrAbove: walk.above).flatMap { $0 <= wanted.upperBound ? $0 : nil } : nil
        switch (lower, upper) {
        case (let low?, let high?):
            // Nearer the centre first; on a tie the lower index.
            if doubleCentre - 2 * low <= 2 * high - doubleCentre {
                walk.below = low - 1
                return low
            }
            walk.above = high + 1
            return high
        case (let low?, nil):
            walk.below = low - 1
            return low
        case (nil, let high?):
            walk.above = high + 1
            return high
        case (nil, nil):
            return nil
        }
    }

    /// The first wanted photo, without taking it.
    public var first: Int? {
        var walk = walk()
        return next(&walk)
    }

    /// Every wanted photo in start order (a walk to the end).
    public func ordered() -> [Int] {
        var result: [Int] = []
        var walk = walk()
        while let index = next(&walk) { result.append(index) }
        return result
    }
}
