import PhotoClusterCore
import PhotoClusterScheduling

/// The simulator's draws.
extension SeededRandom {
    /// True with probability `p`.
    package mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// Microseconds, uniformly between two durations in milliseconds.
    package mutating func millis(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &self) * 1000 }
}
