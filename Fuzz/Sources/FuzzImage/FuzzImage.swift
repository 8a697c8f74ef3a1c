import Foundation
import PhotoClusterCore
import PhotoClusterImaging

/// `FUZZ_VERBOSE=1 .build/release/<target> FILE…` says what each input decoded to (for seeds).
private let verbose = getenv("FUZZ_VERBOSE") != nil

/// 4 megapixels (16 MB of RGBA): large enough for every seed, small enough that the fuzzer
/// spends its time in the decoders rather than in malloc. Larger headers are refused before
/// any pixel memory is allocated, which is itself worth exercising.
private let maxPixels = 4_000_000
nonisolated(unsafe) private var sink: UInt8 = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let image: RGBAImage
    do {
        let decoded = try ImageCodec.decode(data, maxPixels: maxPixels)
        image = decoded.image
        if verbose { print("FuzzImage: \(decoded.format) \(image.width)x\(image.height)") }
    } catch {
        if verbose { print("FuzzImage: \(error)") }
        return 0
    }
    if image.width <= 0 || image.height <= 0 || image.width * image.height > maxPixels {
        fatalError("decoded a \(image.width)x\(image.height) image with maxPixels \(maxPixels)")
    }
    // Touch both ends of the buffer the C decoder handed over: under AddressSanitizer an
    // allocation smaller than width * height * 4 is reported here.
    sink &+= image.pixels[0] &+ image.pixels[image.byteCount - 1]
    // Again, shrinking while decoding (JPEG's DCT scaling and the area reduction, PNG row by row).
    let target = ImageSize(width: max(1, image.width / 3), height: max(1, image.height / 3))
    if let reduced = try? ImageCodec.decode(data, options: DecodeOptions(maxPixels: maxPixels, reduceTo: target)).image {
        let expected = target.width < image.width || target.height < image.height ? target : ImageSize(width: image.width, height: image.height)
        if reduced.width != expected.width || reduced.height != expected.height {
            fatalError("reduced to \(reduced.width)x\(reduced.height), asked for \(target) of \(image.width)x\(image.height)")
        }
        sink &+= reduced.pixels[0] &+ reduced.pixels[reduced.byteCount - 1]
    }
    return 0
}
