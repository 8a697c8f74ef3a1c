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
    /// or one that cannot be told from the URL).
    package static func forInput(url: String) -> UInt32? {
        newDecoderExtensions.contains(pathExtension(of: url)) ? newCodecs : nil
    }

    /// File name extensions of formats only workers of `newCodecs` decode (HEIF's and AVIF's
    /// image sequences included: their first image is read).
    package static let newDecoderExtensions: Set<String> = ["heic", "heif", "hif", "heics", "heifs", "avif", "avifs", "tif", "tiff", "gif"]

    /// The extension of the URL's last path segment, lowercased, without its query or fragment;
    /// "" when it has none.
    package static func pathExtension(of url: String) -> String {
        var path = Substring(url)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        if let scheme = path.range(of: "://") { path = path[scheme.upperBound...] }
        guard let slash = path.lastIndex(of: "/") else { return "" }  // a host alone names no file
        let name = path[path.index(after: slash)...]
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// Why photos needing `version` wait, for the job's status: what needs it and which side to
    /// upgrade.
    package static func waitingReason(photos: Int, need version: UInt32, newestConnected: UInt32) -> String {
        let what = photos == 1 ? "1 photo waits" : "\(photos) photos wait"
        return "\(what) for a worker of protocol \(version) or later (AVIF output, --chroma, or a HEIC, AVIF, TIFF or GIF input); "
            + "no connected worker speaks it (the newest speaks \(newestConnected)): upgrade a worker"
    }
}
