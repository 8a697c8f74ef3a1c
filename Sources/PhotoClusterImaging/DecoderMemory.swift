import CImageCodec
import Foundation

extension ImageCodec {
    /// What the decoder allocates for itself besides its output while it decodes `data`, read by
    /// the decoder's own probe of the header (see `ic_decoder_bytes`): every DCT coefficient of a
    /// JPEG that libjpeg decodes in several passes (progressive, or a first scan with fewer
    /// components than the frame), the ARGB copy of a lossless WebP, the alpha plane of a lossy
    /// one. 0 for a decoder that works row by row, or a header it cannot read, and for the
    /// container formats, whose libraries report their figure in the header
    /// (`ImageHeader.decoderScratchBytes`).
    public static func decoderBytes(_ data: Data, format: ImageFormat) -> Int {
        let c: ic_format
        switch format {
        case .jpeg: c = IC_FORMAT_JPEG
        case .png: c = IC_FORMAT_PNG
        case .webp: c = IC_FORMAT_WEBP
        case .heif, .avif, .tiff, .gif, .jxl: return 0
        }
        let bytes = data.withUnsafeBytes { raw in
            ic_decoder_bytes(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, c)
        }
        return Int(clamping: bytes)
    }

    /// The most scans a JPEG may have; one with more is refused before any is decoded.
    public static let maxJPEGScans = Int(IC_MAX_JPEG_SCANS)
}
