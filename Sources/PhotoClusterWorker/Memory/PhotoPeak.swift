import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterPluginHost

/// The most memory one photo holds at once on its way through the worker, computed from its
/// header and its filter chain before any pixel is allocated: each step's live buffers are
/// added up (the downloaded bytes and the decoder's own buffers during the decode, input and
/// output of every filter, the image and the encoder's buffers during the encode) and the
/// largest sum is the peak. A filter that works in place on an image it owns costs no second
/// image; one whose input the stage cache shares writes a copy.
public struct PhotoPeak: Equatable, Sendable {
    /// The largest sum of live bytes.
    public var bytes: Int
    /// Which step reaches it: "decode", "filter:NAME", "encode".
    public var step: String
    /// The size of the result.
    public var output: ImageSize
    /// The largest image any step makes.
    public var largestImage: ImageSize

    /// Where the photo starts.
    public enum Start: Sendable {
        /// Encoded bytes still to decode: their header, their count, and what the decoder needs
        /// besides its output for each pixel of the source (see `decoderBytesPerPixel`).
        case encoded(header: ImageHeader, byteCount: Int, decoderBytesPerPixel: Int, upright: Bool)
        /// Pixels already decoded (from the stage cache): `shared` when the cache holds them.
        case decoded(ImageSize, shared: Bool)
    }

    /// Bytes of bookkeeping per photo besides its buffers.
    static let overheadBytes = 1 << 20

    /// - Parameters:
    ///   - filters: the whole chain; `firstFilter` is the first one still to run (1 when the
    ///     decode applies a reducing first filter, see `reducesOnLoad`).
    ///   - fusedStart: where the trailing point filters that run inside the encoder begin.
    ///   - cacheEntryLimit: images of at most this many bytes are kept in the stage cache after
    ///     the step that made them, so the next step copies before writing.
    public static func estimate(
        start: Start, filters: [ConfiguredFilter], firstFilter: Int, reducesOnLoad: Bool, fusedStart: Int,
        format: ImageFormat, lossless: Bool, cacheEntryLimit: Int
    ) -> PhotoPeak {
        let size = FilterMemory.imageBytes
        var peak = 0
        var step = "decode"
        var largest = ImageSize(width: 0, height: 0)
        func note(_ bytes: Int, _ name: String) {
            if bytes > peak { (peak, step) = (bytes, name) }
        }
        func made(_ image: ImageSize) {
            if size(image) > size(largest) { largest = image }
        }
        var current: ImageSize
        var shared: Bool
        switch start {
        case .decoded(let image, let isShared):
            current = image
            shared = isShared
        case .encoded(let header, let byteCount, let perPixel, let upright):
            let source = ImageSize(width: header.width, height: header.height)
            let orientation = upright ? header.metadata.orientation : .up
            let uprightSize = orientation.uprightSize(width: source.width, height: source.height)
            var decoded = source
            var plan: ReductionPlan?
            if reducesOnLoad, let first = filters.first, let reducing = first.stage as? ReducingFilter {
                plan = reducing.plan(for: ImageSize(width: uprightSize.width, height: uprightSize.height), parameters: first.parameters)
                // The decoder makes the box step or a DCT scale (see ic_wants_reduction: it only shrinks).
                if let target = plan!.loadTarget(stored: source, format: header.format, swapsAxes: orientation.swapsAxes),
                    target.width <= source.width && target.height <= source.height && target != source
                {
                    decoded = target
                }
            }
            let pixels = source.width.multipliedReportingOverflow(by: source.height)
            let decoderOwn = pixels.overflow ? Int.max / 4 : pixels.partialValue.multipliedReportingOverflow(by: perPixel).partialValue
            made(decoded)
            note(byteCount + decoderOwn + size(decoded), "decode")
            var image = decoded
            if orientation != .up {
                let turned = orientation.uprightSize(width: decoded.width, height: decoded.height)
                image = ImageSize(width: turned.width, height: turned.height)
                note(byteCount + size(decoded) + size(image), "decode")
            }
            if let plan {
                if image != plan.scaled {
                    // What the decoder did not box (a photo it could not shrink) is boxed first.
                    var kernelInput = image
                    if let boxed = plan.boxed, image != boxed, image.width >= boxed.width, image.height >= boxed.height {
                        made(boxed)
                        note(byteCount + size(image) + size(boxed) + (image.width + 64) * 16, "decode")
                        kernelInput = boxed
                    }
                    made(plan.scaled)
                    let boxedBytes = kernelInput == image ? 0 : size(kernelInput)
                    note(byteCount + size(image) + boxedBytes + size(plan.scaled) + plan.kernelScratchBytes(from: kernelInput), "decode")
                    image = plan.scaled
                }
                if let crop = plan.crop, crop.size != plan.scaled {
                    made(crop.size)
                    note(byteCount + size(image) + size(crop.size), "decode")
                    image = crop.size
                }
            }
            current = image
            shared = size(current) <= cacheEntryLimit
        }
        var index = firstFilter
        while index < fusedStart {
            let filter = filters[index]
            let memory = filter.stage.memory(for: current, parameters: filter.parameters)
            made(memory.output)
            let input = size(current), output = size(memory.output)
            if filter.stage is HostedFilterStage {
                // The plugin host's shared arena: a copy in, the result out.
                note(input + max(input, output) + output + memory.scratchBytes, "filter:\(filter.name)")
            } else if memory.inPlace {
                note(input + (shared ? output : 0) + memory.scratchBytes, "filter:\(filter.name)")
            } else {
                note(input + output + memory.scratchBytes, "filter:\(filter.name)")
            }
            current = memory.output
            shared = size(current) <= cacheEntryLimit
            index += 1
        }
        note(size(current) + encoderBytes(for: current, format: format, lossless: lossless, fused: fusedStart < filters.count), "encode")
        return PhotoPeak(bytes: peak + overheadBytes, step: step, output: current, largestImage: largest)
    }

    /// What the encoder allocates for an image of `size` besides the image: its own copy in
    /// its colour space (WebP), its working memory, and the growing output.
    static func encoderBytes(for size: ImageSize, format: ImageFormat, lossless: Bool, fused: Bool) -> Int {
        let pixels = max(0, size.width) * max(0, size.height)
        let band = fused ? size.width * 4 * 16 : 0
        switch format {
        case .jpeg: return pixels + band + (1 << 20)
        case .png: return pixels * 4 + band + (1 << 20)
        case .webp: return (lossless ? pixels * 16 : pixels * 4) + band + (1 << 20)
        // libheif's RGB copy, its YCbCr planes and aom's frame buffers and analysis: 23.6 bytes a
        // pixel measured on a 12-megapixel photo (docs/images.md). The others are never written.
        case .avif, .heif, .tiff, .gif, .jxl: return pixels * 28 + band + (8 << 20)
        }
    }

    /// Bytes a decoder allocates per source pixel besides its output, rounded up, as the
    /// decoder's own header probe finds them wherever they lie in the file
    /// (`ImageCodec.decoderBytes`): a JPEG that libjpeg decodes in several passes keeps every DCT
    /// coefficient (2 bytes a sample: 8 a pixel for a non-interleaved CMYK file, baseline or
    /// not; 3 for 4:2:0), a lossless WebP is decoded whole into ARGB first (4), a lossy one with
    /// alpha keeps its alpha plane (1); the others decode row by row (0). The container formats'
    /// libraries report their figure in the header (HEIF and AVIF decode whole, a grid's tiles put
    /// together; TIFF holds a strip or row of tiles; GIF a canvas; JPEG XL its frame in 32-bit planes).
    public static func decoderBytesPerPixel(_ data: Data, header: ImageHeader) -> Int {
        let pixels = header.width.multipliedReportingOverflow(by: header.height)
        guard header.width > 0, header.height > 0, !pixels.overflow else { return 0 }
        let total: Int
        switch header.format {
        case .heif, .avif, .tiff, .gif, .jxl: total = header.decoderScratchBytes
        case .jpeg, .png, .webp: total = ImageCodec.decoderBytes(data, format: header.format)
        }
        guard total > 0 else { return 0 }
        return (total + pixels.partialValue - 1) / pixels.partialValue
    }

    /// The same, reading the header first.
    public static func decoderBytesPerPixel(_ data: Data, format: ImageFormat) -> Int {
        guard let header = try? ImageCodec.inspect(data), header.format == format else { return 0 }
        return decoderBytesPerPixel(data, header: header)
    }
}
