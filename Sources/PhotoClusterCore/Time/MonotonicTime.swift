/// Deadlines, timeouts and liveness are measured on `ContinuousClock` (CLOCK_BOOTTIME on Linux),
/// never on the wall clock: a wall clock stepped by NTP or by hand (`date -s`) would otherwise
/// declare every peer lost at once (a step forward) or stop every timer for as long as the step
/// (a step back). `Date` stays for what people read: log lines, job creation times, history.
public typealias MonotonicInstant = ContinuousClock.Instant

extension ContinuousClock.Instant {
    /// Seconds from `earlier` to this instant (negative when `earlier` is later).
    public func seconds(since earlier: ContinuousClock.Instant) -> Double {
        (self - earlier).inSeconds
    }

    /// This instant moved by `seconds` (a `TimeInterval` setting).
    public func adding(seconds: Double) -> ContinuousClock.Instant {
        self + .seconds(seconds)
    }
}

extension Duration {
    /// The duration in seconds, to compare with `TimeInterval` settings and print.
    public var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
