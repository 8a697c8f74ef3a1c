/// Decides, without any I/O, which photos a viewport wants and in what order.
///
/// In viewport mode only visible ∪ prefetch photos run; in batch mode (`runsEverything`) the
/// rest run too, in the background band. Within a band, photos nearer the centre of the visible
/// range go first.
public struct ViewportPlanner: Sendable {
    public let count: Int
    public let viewport: Viewport
    public let runsEverything: Bool

    public init(count: Int, viewport: Viewport, runsEverything: Bool) {
        self.count = count
        self.viewport = viewport
        self.runsEverything = runsEverything
    }

    public func band(of index: Int) -> PriorityBand {
        if viewport.visible.contains(index) { return .visible }
        if let interest = viewport.interest(count: count), interest.contains(index) { return .prefetch }
        return .background
    }

    /// Twice the distance from the centre of the visible range (integral even for an even-sized range).
    public func rank(of index: Int) -> Int {
        abs(2 * index - (viewport.visible.lowerBound + viewport.visible.upperBound))
    }

    /// Whether the photo should be running or queued under this viewport.
    public func wants(_ index: Int) -> Bool {
        runsEverything || band(of: index) != .background
    }

    /// Orders photos: higher band first, then nearer the centre, then manifest order.
    public func order(_ indices: [Int]) -> [Int] {
        indices
            .map { (index: $0, band: band(of: $0), rank: rank(of: $0)) }
            .sorted { a, b in
                if a.band != b.band { return a.band > b.band }
                if a.rank != b.rank { return a.rank < b.rank }
                return a.index < b.index
            }
            .map(\.index)
    }
}
