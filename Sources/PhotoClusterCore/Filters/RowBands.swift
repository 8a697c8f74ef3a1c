/// Splits an image into bands of rows so long filters can check for cancellation between them.
public enum RowBands {
    /// About 256 KiB of pixels per band: small enough that a cancel lands within a millisecond
    /// or two, large enough that the check costs nothing.
    public static func bandHeight(width: Int) -> Int {
        max(1, (256 * 1024) / max(1, width * 4))
    }

    public static func forEach(in image: RGBAImage, isCancelled: () -> Bool, _ body: (Range<Int>) throws -> Void) throws {
        let band = bandHeight(width: image.width)
        var start = 0
        while start < image.height {
            if isCancelled() { throw FilterCancelled() }
            let end = min(image.height, start + band)
            try body(start..<end)
            start = end
        }
    }
}
