import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Where a job's outputs go. Every path is `outputPathPrefix` + the photo's stem + `.` + the
/// format's extension, so a path is checked and written byte by byte from the job's strings,
/// without making a `String` per photo (a result of a 100,000-photo job is checked 100,000 times).
extension Job {
    /// Where a photo's output is once it is done: its stem and format in the output directory.
    package func outputPath(of photo: PhotoRecord) -> String {
        guard photo.state == .done else { return "" }
        return outputPath(stem: stem(of: photo.index), format: photo.outputFormat)
    }

    /// Where photo `index`'s output of `format` goes.
    package func outputPath(of index: UInt32, format: Photocluster_V1_OutputFormat) -> String {
        outputPath(stem: stem(of: index), format: format)
    }

    /// The file a result of `format` is written to. Made as a string: appending to a `URL` parses
    /// it, which costs more than the rest of a photo's handling.
    package func outputPath(stem: String, format: Photocluster_V1_OutputFormat) -> String {
        outputPathPrefix + OutputNaming.fileName(stem: stem, format: format.fileExtension)
    }

    /// Whether `path` is where photo `index`'s output of `format` goes.
    package func isOutputPath(_ path: String, of index: UInt32, format: Photocluster_V1_OutputFormat) -> Bool {
        var (path, prefix) = (path, outputPathPrefix)
        let fileExtension = format.fileExtension.utf8
        let stemNumber = stemNumber(of: index)
        let stemStart = prefix.utf8.count
        let dot = stemStart + strings.byteCount(stemNumber)
        return path.withUTF8 { path in
            guard path.count == dot + 1 + fileExtension.count, path[dot] == UInt8(ascii: "."),
                path[(dot + 1)...].elementsEqual(fileExtension), prefix.withUTF8({ path[..<stemStart].elementsEqual($0) })
            else { return false }
            return strings.withBytes(stemNumber) { path[stemStart..<dot].elementsEqual($0) }
        }
    }

    /// Appends the bytes of photo `index`'s output path for `format` (what `outputPath` makes).
    package func appendOutputPath(of index: UInt32, format: Photocluster_V1_OutputFormat, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: outputPathPrefix.utf8)
        strings.withBytes(stemNumber(of: index)) { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "."))
        bytes.append(contentsOf: format.fileExtension.utf8)
    }

    /// The output directory's path, or the place (`s3://BUCKET/PREFIX`, a shared directory).
    package var outputLocation: String { place?.description ?? outputDirectoryPath }
}

extension Photocluster_V1_OutputFormat {
    /// The extension of an output file of this format (a result's format is never `keep`).
    package var fileExtension: String {
        switch self {
        case .png: return "png"
        case .webp: return "webp"
        case .avif: return "avif"
        default: return "jpg"
        }
    }
}
