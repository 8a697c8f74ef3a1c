/// The encoded image formats the codec reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp

    /// The usual file name extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .webp: return "webp"
        }
    }
}
