import PhotoClusterCore
import PhotoClusterImaging

extension ReductionPlan {
    /// How far JPEG's DCT scaling may take a photo: to 1.9× the output. It is no box: each 8×8
    /// block keeps its lowest frequencies, a far better low-pass than averaging, so it needs less
    /// room before the kernel than a box does (`gap`, 2.5). A 12-MP photo headed for 512 px is
    /// decoded at 1/4 (1008×756, 1.97×), as libvips does, instead of 1/2 and a box: twice as fast
    /// to decode, and within 51–53 dB of the exact Lanczos-3 on camera-like photos.
    static let dctGap = 1.9

    /// What the decoder of a `format` photo stored as `stored` is asked to shrink it to
    /// (`DecodeOptions.reduceTo`), in stored pixels (`swapsAxes`: the orientation turns it a
    /// quarter); nil: decode it whole. JPEG: the largest DCT scale that leaves the kernel at least
    /// `dctGap`, when that is no larger than the box step; otherwise the box step.
    func loadTarget(stored: ImageSize, format: ImageFormat, swapsAxes: Bool) -> ImageSize? {
        guard !linearLight else { return nil }
        func turned(_ size: ImageSize) -> ImageSize { swapsAxes ? ImageSize(width: size.height, height: size.width) : size }
        var target = boxed.map(turned)
        let output = turned(scaled)
        if format == .jpeg {
            let limit = target ?? stored
            for d in [8, 4, 2] {
                let scaled = ImageSize(width: (stored.width + d - 1) / d, height: (stored.height + d - 1) / d)
                guard Double(scaled.width) >= Self.dctGap * Double(output.width), Double(scaled.height) >= Self.dctGap * Double(output.height) else {
                    continue
                }
                if scaled.width <= limit.width && scaled.height <= limit.height { target = scaled }
                break
            }
        }
        return target
    }
}
