/// The photos a client is looking at: a range of manifest indices, a prefetch margin of photos
/// on each side, and whether the user is scrolling right now.
public struct Viewport: Sendable, Equatable {
    /// First and last visible manifest index, inclusive.
    public var visible: ClosedRange<Int>
    public var prefetch: Int
    public var scrolling: Bool

    public init(visible: ClosedRange<Int>, prefetch: Int = 0, scrolling: Bool = false) {
        self.visible = visible
        self.prefetch = max(0, prefetch)
        self.scrolling = scrolling
    }

    /// A plain batch: everything visible, not scrolling.
    public static func everything(count: Int) -> Viewport {
        Viewport(visible: 0...max(0, count - 1))
    }

    /// Visible plus the prefetch margin, clipped to the job.
    public func interest(count: Int) -> ClosedRange<Int>? {
        let low = max(0, visible.lowerBound - prefetch)
        let high = min(count - 1, visible.upperBound + prefetch)
        return low <= high ? low...high : nil
    }
}

/// Priority bands: visible > prefetch > background.
public enum PriorityBand: Int, Sendable, Comparable, CaseIterable {
    case background = 0
    case prefetch = 1
    case visible = 2

    public static func < (lhs: PriorityBand, rhs: PriorityBand) -> Bool { lhs.rawValue < rhs.rawValue }
}
