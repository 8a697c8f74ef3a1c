import CImageCodec

/// Why an image could not be decoded or encoded.
public struct ImageCodecError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No bytes at all.
        case empty
        /// Not a format the codec reads, or a variant of one that is not handled (an animated WebP, a
        /// floating-point TIFF).
        case unsupportedFormat
        /// Malformed, truncated or failing a checksum.
        case corrupt
        /// Over the pixel cap, or too big to allocate.
        case tooLarge
        /// The encoder rejected the image or failed.
        case encodeFailed
    }

    public let kind: Kind
    /// A human explanation naming the reason.
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

extension ImageCodecError {
    /// The error for a failing status from the C codec.
    init(status: ic_status, message: String) {
        let kind: Kind
        switch status {
        case IC_EMPTY: kind = .empty
        case IC_UNSUPPORTED: kind = .unsupportedFormat
        case IC_TOO_LARGE: kind = .tooLarge
        case IC_ENCODE_FAILED: kind = .encodeFailed
        default: kind = .corrupt
        }
        self.init(kind: kind, message: message.isEmpty ? "image codec failed (status \(status.rawValue))" : message)
    }
}
