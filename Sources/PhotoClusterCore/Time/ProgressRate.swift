/// A job's pace as its client sees it: photos finished a second over the last `window` seconds,
/// and the time the rest would take at that pace. `cluster submit` and `cluster watch` print both
/// beside the counts, so a long job says when it will end.
///
/// A window, not the whole run: the first seconds (process start, the workers joining, the first
/// downloads) and a worker lost midway would otherwise skew the estimate for the rest of the job.
/// The caller owns the value and feeds it from one thread.
public struct ProgressRate: Sendable {
    public let window: Double
    /// (seconds since some fixed start, photos done), oldest first, at least a twentieth of the
    /// window apart (a job reports every photo: thousands a second). The oldest kept is the last
    /// at or before the window's start, so the pace spans the whole window once it can.
    private var marks: [(seconds: Double, done: Int)] = []
    private var latest: (seconds: Double, done: Int)?

    public init(window: Double = 10) {
        self.window = window
    }

    public mutating func record(done: Int, at seconds: Double) {
        if let latest, seconds < latest.seconds { return }  // out of order: ignored
        latest = (seconds, done)
        if marks.isEmpty || seconds - marks[marks.count - 1].seconds >= window / 20 { marks.append((seconds, done)) }
        while marks.count > 1, marks[1].seconds <= seconds - window { marks.removeFirst() }
    }

    /// How many marks the window holds now (bounded by the spacing, however many records).
    var marksKept: Int { marks.count }

    /// Photos a second over the window; nil until the progress seen spans a second.
    public var photosPerSecond: Double? {
        guard let first = marks.first, let latest, latest.seconds - first.seconds >= 1 else { return nil }
        return Double(max(0, latest.done - first.done)) / (latest.seconds - first.seconds)
    }

    /// Seconds until `total` at the current pace; nil without a pace or when nothing moves.
    public func secondsLeft(total: Int) -> Double? {
        guard let rate = photosPerSecond, rate > 0, let done = latest?.done else { return nil }
        return Double(max(0, total - done)) / rate
    }

    /// ", 12.5 photos/s, about 3 min left" (empty until there is a pace; no time left at the end).
    public func summary(total: Int) -> String {
        guard let rate = photosPerSecond else { return "" }
        var text = ", " + Self.rateText(rate)
        if let left = secondsLeft(total: total), left > 0 { text += ", about " + Self.durationText(left) + " left" }
        return text
    }

    /// "0.4 photos/s", "12.5 photos/s", "1430 photos/s".
    public static func rateText(_ rate: Double) -> String {
        let tenths = (rate * 10).rounded() / 10
        return tenths < 100 ? "\(tenths) photos/s" : "\(Int(rate.rounded())) photos/s"
    }

    /// "45 s", "3 min", "1 h 5 min": rounded up, to the unit a reader plans by.
    public static func durationText(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s) s" }
        let minutes = Int((seconds / 60).rounded(.up))
        if minutes < 60 { return "\(minutes) min" }
        return "\(minutes / 60) h \(minutes % 60) min"
    }
}
