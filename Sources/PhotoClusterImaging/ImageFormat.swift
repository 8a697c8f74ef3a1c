/// The encoded image formats the codec reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp
    /// HEIC and other HEIF files: read only (browsers do not show them).
    case heif
    case avif
    /// Read only: the first page.
    case tiff
    /// Read only: the first frame.
    case gif
    /// JPEG XL, read only: the first frame.
    case jxl

    /// The formats `ImageCodec.encode` writes.
    public static let writable: [ImageFormat] = [.jpeg, .png, .webp, .avif]

    public var isWritable: Bool { Self.writable.contains(self) }

    /// What an output "in the input's format" is written as: the input's own format where it can
    /// be written; JPEG for HEIF, TIFF and JPEG XL photos, PNG for GIF graphics (transparency kept).
    public var keptAs: ImageFormat {
        switch self {
        case .heif, .tiff, .jxl: return .jpeg
        case .gif: return .png
        default: return self
        }
    }

    /// The usual file name extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .webp: return "webp"
        case .heif: return "heic"
        case .avif: return "avif"
        case .tiff: return "tif"
        case .gif: return "gif"
        case .jxl: return "jxl"
        }
    }
}
