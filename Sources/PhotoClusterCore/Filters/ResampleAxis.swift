/// How one axis of a resize maps input pixels to output pixels: output pixel o is the weighted sum
/// of `taps` consecutive input pixels starting at `first[o]`, with weights `weights[o·taps + k]`.
/// Unused taps have weight 0 and may point one pixel or more past the end, so callers pad.
///
/// Shrinking (output < input) is an exact box filter: output pixel o covers the input interval
/// [o·input/output, (o + 1)·input/output) and each input pixel weighs the fraction of that
/// interval it covers. Otherwise it is bilinear: output pixel o samples input position
/// u = (o + 0.5)·input/output − 0.5 clamped to [0, input − 1] (the same size maps each pixel to itself).
final class ResampleAxis {
    let taps: Int
    let first: UnsafeMutablePointer<Int>
    let weights: UnsafeMutablePointer<Float>

    init(from input: Int, to output: Int) {
        taps = output < input ? (input + output - 1) / output + 1 : 2
        first = .allocate(capacity: output)
        weights = .allocate(capacity: output * taps)
        weights.initialize(repeating: 0, count: output * taps)
        for o in 0..<output {
            if output < input { area(o, input: input, output: output) } else { bilinear(o, input: input, output: output) }
        }
    }

    deinit {
        first.deallocate()
        weights.deallocate()
    }

    /// Exact in integers: positions are counted in units of 1/output of an input pixel.
    private func area(_ o: Int, input: Int, output: Int) {
        let lo = o * input, hi = (o + 1) * input
        first[o] = lo / output
        for k in 0..<taps {
            let i = first[o] + k
            let covered = min(hi, (i + 1) * output) - max(lo, i * output)
            if covered > 0 { weights[o * taps + k] = Float(Double(covered) / Double(input)) }
        }
    }

    private func bilinear(_ o: Int, input: Int, output: Int) {
        let u = min(max((Double(o) + 0.5) * Double(input) / Double(output) - 0.5, 0), Double(input - 1))
        let i = Int(u)
        first[o] = i
        weights[o * 2] = Float(1 - (u - Double(i)))
        weights[o * 2 + 1] = Float(u - Double(i))
    }
}
