/// How one axis of a resize maps input pixels to output pixels: output pixel o is the weighted sum
/// of `taps` consecutive input pixels starting at `first[o]`, with weights `weights[o·taps + k]`.
/// Unused taps have weight 0 and may point one pixel or more past the end, so callers pad. The
/// weights are computed once per axis, so the loops that apply them only multiply and add.
final class ResampleAxis {
    let taps: Int
    let first: UnsafeMutablePointer<Int>
    let weights: UnsafeMutablePointer<Float>

    /// Exact area averaging (a box filter), for shrinking only: output pixel o covers the input
    /// interval [o·input/output, (o + 1)·input/output) and each input pixel weighs the fraction of
    /// that interval it covers. The same weights as the decoders' reduction (reduce.c).
    init(boxFrom input: Int, to output: Int) {
        precondition(output <= input)
        taps = (input + output - 1) / output + 1
        first = .allocate(capacity: output)
        weights = .allocate(capacity: output * taps)
        weights.initialize(repeating: 0, count: output * taps)
        // Exact in integers: positions are counted in units of 1/output of an input pixel.
        for o in 0..<output {
            let lo = o * input, hi = (o + 1) * input
            first[o] = lo / output
            for k in 0..<taps {
                let i = first[o] + k
                let covered = min(hi, (i + 1) * output) - max(lo, i * output)
                if covered > 0 { weights[o * taps + k] = Float(Double(covered) / Double(input)) }
            }
        }
    }

    /// A convolution with `kernel`, stretched by the shrink factor when shrinking (so it filters
    /// out what the output cannot hold) and at its own width when enlarging. Output pixel o is
    /// centred on input position (o + 0.5)·input/output; taps that would fall outside the image are
    /// dropped and the rest renormalised to sum to one, as Pillow does. Nearest takes the one
    /// pixel under the centre.
    init(from input: Int, to output: Int, kernel: ResampleKernel) {
        let scale = Double(input) / Double(output)
        let stretch = max(scale, 1)
        let support = kernel.support * stretch
        taps = kernel == .nearest ? 1 : Int(support.rounded(.up)) * 2 + 1
        first = .allocate(capacity: output)
        weights = .allocate(capacity: output * taps)
        weights.initialize(repeating: 0, count: output * taps)
        var row = [Double](repeating: 0, count: taps)
        for o in 0..<output {
            let centre = (Double(o) + 0.5) * scale
            if kernel == .nearest {
                first[o] = min(Int(centre), input - 1)
                weights[o] = 1
                continue
            }
            let low = max(Int(centre - support + 0.5), 0)
            let count = min(Int(centre + support + 0.5), input) - low
            var total = 0.0
            for k in 0..<min(count, taps) {
                row[k] = kernel.weight((Double(low + k) - centre + 0.5) / stretch)
                total += row[k]
            }
            first[o] = low
            for k in 0..<min(count, taps) where total != 0 { weights[o * taps + k] = Float(row[k] / total) }
        }
    }

    private struct Key: Hashable {
        let input: Int, output: Int, kernel: ResampleKernel
    }

    /// The axes of the latest resizes, newest last. A job's photos mostly share a size, and a
    /// Lanczos axis costs two sines a tap: about 0.6% of a 12-MP photo's thumbnail when made anew.
    private static let recent = LockedBox<[(key: Key, axis: ResampleAxis)]>([])
    private static let recentLimit = 8

    /// `init(from:to:kernel:)`, made once for the latest few sizes and shared.
    static func shared(from input: Int, to output: Int, kernel: ResampleKernel) -> ResampleAxis {
        let key = Key(input: input, output: output, kernel: kernel)
        if let axis = recent.withLock({ $0.last(where: { $0.key == key })?.axis }) { return axis }
        let axis = ResampleAxis(from: input, to: output, kernel: kernel)
        recent.withLock { recent in
            recent.removeAll { $0.key == key }
            recent.append((key, axis))
            if recent.count > recentLimit { recent.removeFirst() }
        }
        return axis
    }

    deinit {
        first.deallocate()
        weights.deallocate()
    }
}
