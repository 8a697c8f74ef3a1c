import CPhotoClusterPluginABI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// channel-swap: a new image whose red and blue are the input's blue and red (alpha and green
/// kept), flipped left to right when `mirror` (params[0]) is 1. Writes into a malloc()ed
/// buffer the host adopts, so the input is left as it was.
func channelSwapFilter(
    image: UnsafeMutablePointer<pc_image>?, params: UnsafePointer<Double>?, out: UnsafeMutablePointer<pc_image>?,
    isCancelled: pc_is_cancelled_fn?, cancelContext: UnsafeMutableRawPointer?,
    error: UnsafeMutablePointer<CChar>?, errorSize: Int
) -> Int32 {
    guard let image = image?.pointee, let out, let params, let source = image.pixels else {
        return fail("called without an image", error, errorSize)
    }
    let width = Int(image.width), height = Int(image.height)
    let mirror = params[0] != 0
    guard let raw = malloc(width * height * 4) else {
        return fail("out of memory for a \(width)x\(height) image", error, errorSize)
    }
    let target = raw.assumingMemoryBound(to: UInt8.self)
    for y in 0..<height {
        if isCancelled?(cancelContext) ?? 0 != 0 {
            free(raw)
            return PC_CANCELLED
        }
        let row = y * width * 4
        for x in 0..<width {
            let from = source + row + x * 4
            let to = target + row + (mirror ? width - 1 - x : x) * 4
            to[0] = from[2]
            to[1] = from[1]
            to[2] = from[0]
            to[3] = from[3]
        }
    }
    out.pointee = pc_image(pixels: target, width: image.width, height: image.height)
    return PC_OK
}

/// Copies `message` into the host's error buffer, cut to fit, and returns PC_ERROR.
private func fail(_ message: String, _ error: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int32 {
    guard let error, size > 0 else { return PC_ERROR }
    let bytes = Array(message.utf8.prefix(size - 1))
    for (n, byte) in bytes.enumerated() { error[n] = CChar(bitPattern: byte) }
    error[bytes.count] = 0
    return PC_ERROR
}
