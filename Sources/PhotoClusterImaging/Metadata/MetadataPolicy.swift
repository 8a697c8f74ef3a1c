import Foundation
import PhotoClusterCore

/// Which of a photo's metadata its output carries. Every policy keeps the ICC profile (unless the
/// pixels were converted to sRGB) and what the output needs to show right.
public enum MetadataPolicy: String, Sendable, CaseIterable {
    /// No EXIF or XMP: GPS positions, serial numbers and the like never reach a published
    /// output. An orientation that was not applied (`--no-auto-orient`) is written alone.
    case strip
    /// EXIF's Artist and Copyright only (and an orientation that was not applied).
    case copyright
    /// EXIF and XMP as they came, with the orientation reset to 1 when it was applied and the
    /// EXIF pixel dimensions set to the output's.
    case keep

    /// The metadata to embed in an output of `width` × `height` made from a photo with `source`
    /// metadata. `orientationApplied`: the pixels were turned upright. `profileKept`: the pixels
    /// are still in the source's colour space.
    public func outputMetadata(
        from source: ImageMetadata, orientationApplied: Bool, profileKept: Bool, width: Int, height: Int
    ) -> (iccProfile: Data?, exif: Data?, xmp: Data?) {
        let profile = profileKept ? source.iccProfile : nil
        let remaining: ImageOrientation = orientationApplied ? .up : source.orientation
        switch self {
        case .strip:
            return (profile, Exif.minimal(orientation: remaining), nil)
        case .copyright:
            let rights: (artist: String?, copyright: String?) = source.exif.map(Exif.rights(in:)) ?? (nil, nil)
            return (profile, Exif.minimal(orientation: remaining, artist: rights.artist, copyright: rights.copyright), nil)
        case .keep:
            guard orientationApplied else { return (profile, source.exif, source.xmp) }
            let exif = source.exif.flatMap { Exif.resettingOrientation(of: $0, width: width, height: height) }
            return (profile, exif, source.xmp.map(XMP.resettingOrientation(of:)))
        }
    }
}

/// The XMP packet's copy of the orientation (`tiff:Orientation`), which viewers read too.
enum XMP {
    /// The packet with `tiff:Orientation` set to 1, in attribute or element form; unchanged when
    /// it is not UTF-8 or has no orientation.
    static func resettingOrientation(of packet: Data) -> Data {
        guard var text = String(data: packet, encoding: .utf8), text.contains("tiff:Orientation") else { return packet }
        for (pattern, replacement) in [
            (#"tiff:Orientation\s*=\s*"[^"]*""#, #"tiff:Orientation="1""#),
            (#"tiff:Orientation\s*=\s*'[^']*'"#, #"tiff:Orientation='1'"#),
            (#"<tiff:Orientation>[^<]*</tiff:Orientation>"#, "<tiff:Orientation>1</tiff:Orientation>"),
        ] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return Data(text.utf8)
    }
}
