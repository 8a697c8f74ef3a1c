import Foundation
import PhotoClusterProto

/// The oldest worker protocol a photo can be sent to. During a rolling upgrade a worker of
/// protocol 1 would write an AVIF photo in its input's format, ignore `--chroma`, and fail HEIC,
/// AVIF, TIFF and GIF inputs as "not an image"; the coordinator sends such photos only to
/// workers of protocol 2 or later, and holds them while none is connected (the job's status
/// says why) instead of failing them.
///
/// What a photo needs is known before it runs only from what the job asks (its output format,
/// its chroma) and from the input's URL: a URL whose path ends in `.heic`, `.avif`, `.tif`,
/// `.gif`… A photo of another URL that turns out to hold such a format may still reach a worker
/// of protocol 1 and fail there: its format is known only once downloaded.
package enum ProtocolNeeds {
    /// The first protocol whose workers read HEIC/HEIF, AVIF, TIFF and GIF, write AVIF and
    /// honour `ImageOptions.chroma`.
    package static let newCodecs: UInt32 = 2

    /// What every photo of a job needs for what the job asks of its outputs (nil: nothing new).
    package static func forOutputs(format: Photocluster_V1_OutputFormat, image: Photocluster_V1_ImageOptions) -> UInt32? {
        format == .avif || image.chroma != .automatic ? newCodecs : nil
    }

    /// What a photo needs to be read, from its URL (nil: a format every accepted worker reads,
    /// or one that cannot be told from the URL). It runs for every photo of every job submitted,
    /// so it reads the URL's UTF-8 bytes in place and builds no string (walking Characters and
    /// calling Foundation's `range(of:)` took fifty times as long: as long as the rest of building
    /// the job).
    package static func forInput(url: String) -> UInt32? {
        let utf8 = url.utf8
        guard let packed = utf8.withContiguousStorageIfAvailable({ packedExtension(of: $0) }) ?? packedExtension(of: utf8) else { return nil }
        return newDecoderExtensions.contains(packed) ? newCodecs : nil
    }

    /// File name extensions of formats only workers of `newCodecs` decode (HEIF's and AVIF's
    /// image sequences included: their first image is read), packed as `packedExtension` packs.
    static let newDecoderExtensions: Set<UInt64> = Set(
        ["heic", "heif", "hif", "heics", "heifs", "avif", "avifs", "tif", "tiff", "gif", "jxl"].compactMap { packedExtension(of: $0.utf8, bare: true) })

    /// The extension of the URL's last path segment, lowercased, without its query or fragment;
    /// "" when it has none or one longer than any image format's (5 bytes).
    package static func pathExtension(of url: String) -> String {
        guard var packed = packedExtension(of: url.utf8) else { return "" }
        var bytes: [UInt8] = []
        while packed != 0 {
            bytes.insert(UInt8(truncatingIfNeeded: packed), at: 0)
            packed >>= 8
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The extension's bytes, lowercased, one per byte of the answer (the last in the lowest): nil
    /// when there is none, or one of more than 5 bytes. "scheme://host.gif" names a host, not a
    /// file, and "/.gif" is a hidden file's whole name. `bare`: the bytes are an extension alone.
    private static func packedExtension<Bytes: BidirectionalCollection>(of url: Bytes, bare: Bool = false) -> UInt64? where Bytes.Element == UInt8 {
        var start = url.startIndex, end = url.endIndex
        if !bare {
            end = url.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? url.endIndex
            guard let dot = url[..<end].lastIndex(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "/") }), url[dot] == UInt8(ascii: "."),
                let slash = url[..<dot].lastIndex(of: UInt8(ascii: "/")), url.index(after: slash) != dot, slash != url.startIndex,
                url[url.index(before: slash)] != UInt8(ascii: "/")
            else { return nil }
            start = url.index(after: dot)
        }
        guard (1...5).contains(url.distance(from: start, to: end)) else { return nil }
        return url[start..<end].reduce(UInt64(0)) { packed, byte in
            packed << 8 | UInt64(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
        }
    }

    /// Why photos needing `version` wait, for the job's status: what needs it and which side to
    /// upgrade.
    package static func waitingReason(photos: Int, need version: UInt32, newestConnected: UInt32) -> String {
        let what = photos == 1 ? "1 photo waits" : "\(photos) photos wait"
        return "\(what) for a worker of protocol \(version) or later (AVIF output, --chroma, or a HEIC, AVIF, TIFF, GIF or JPEG XL input); "
            + "no connected worker speaks it (the newest speaks \(newestConnected)): upgrade a worker"
    }
}
