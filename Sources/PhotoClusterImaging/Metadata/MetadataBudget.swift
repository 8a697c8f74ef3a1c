import CImageCodec
import Foundation

/// What reading one file's header and metadata may cost, so a file built to make that work
/// long (tens of thousands of compressed text chunks, each inflating to the cap) fails fast with
/// the figure instead of keeping a core busy: a total of inflated bytes for the whole file, a
/// count of text chunks, and the caller's stop check (cancel, the stage's deadline) between
/// chunks. One value per `ImageCodec.inspect` call, used on its thread only.
public struct MetadataBudget {
    /// Inflated bytes one file's metadata may produce in all (compressed ICC profiles and XMP):
    /// room for the largest profile and packet kept (`ImageMetadata`'s caps). Once spent,
    /// further compressed metadata is left out unread.
    public static let maxInflatedBytes = 8 << 20
    /// Text chunks (PNG tEXt, zTXt, iTXt) one file may have: libpng's own cache limit. Real
    /// photos have a few; a file with more is refused.
    public static let maxTextChunks = 1000
    /// Chunks (PNG, WebP) or segments (JPEG, before its first scan) one file may have besides
    /// its image data: each costs the walk a little, and a 60 MB file of empty ones is millions.
    public static let maxChunks = 100_000

    private(set) var inflatedLeft = maxInflatedBytes
    private var textChunks = 0
    private var chunks = 0
    private let shouldStop: (() -> Bool)?

    init(shouldStop: (() -> Bool)? = nil) {
        self.shouldStop = shouldStop
    }

    /// Called before each chunk or segment: throws `DecodeStopped` once the caller says stop.
    func check() throws {
        if let shouldStop, shouldStop() { throw DecodeStopped() }
    }

    /// Counts one chunk or segment of `format`; throws past `maxChunks`, naming the figure.
    mutating func countChunk(_ format: ImageFormat) throws {
        chunks += 1
        guard chunks > Self.maxChunks else { return }
        let what = format == .jpeg ? "JPEG has more than \(Self.maxChunks) segments before its first scan" : "\(format == .png ? "PNG" : "WebP") has more than \(Self.maxChunks) chunks besides its image data"
        throw ImageCodecError(kind: .tooLarge, message: "\(what), the most a photo may have")
    }

    /// Counts one text chunk; throws past `maxTextChunks`, naming the figure.
    mutating func countTextChunk() throws {
        textChunks += 1
        guard textChunks > Self.maxTextChunks else { return }
        throw ImageCodecError(
            kind: .tooLarge, message: "PNG has more than \(Self.maxTextChunks) text chunks (tEXt, zTXt, iTXt), the most a photo may have")
    }

    /// Inflates zlib data to at most `max` bytes, charging what it inflated (all of `max` when it
    /// failed past it) to the file's budget; nil when it fails or the budget is spent.
    mutating func inflate(_ compressed: ByteWindow, max: Int) -> Data? {
        let cap = min(max, inflatedLeft)
        guard cap > 0, let base = compressed.bytes.baseAddress, compressed.count > 0 else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = ic_inflate(base.assumingMemoryBound(to: UInt8.self), compressed.count, cap, &output, &size)
        guard status == IC_OK, let output else {
            // The inflated bytes were thrown away, but the work was done: charge the most it may have been.
            inflatedLeft -= status == IC_TOO_LARGE ? cap : Swift.min(cap, compressed.count * 4)
            return nil
        }
        inflatedLeft -= size
        return Data(bytesNoCopy: output, count: size, deallocator: .free)
    }
}
