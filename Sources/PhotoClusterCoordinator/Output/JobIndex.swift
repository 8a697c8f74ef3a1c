import Foundation
import PhotoClusterCore

/// `index.json` in a job's output directory: every photo's state, reason and output path, in the
/// layout `JSONEncoder` gives it (pretty-printed, keys sorted, slashes as they are).
///
/// Written photo by photo into the file as it is made: a million photos make a file of a few
/// hundred megabytes, which `JSONEncoder` would hold in memory two or three times over.
enum JobIndex {
    static func write(_ job: Job, in directory: JobDirectory) throws {
        try directory.write(named: "index.json", tag: job.id) { sink in write(job, into: &sink) }
    }

    static func write(_ job: Job, into sink: inout DurableFile.Sink) {
        sink.append("{\n  \"job\" : ")
        appendString(job.id, to: &sink)
        sink.append(",\n  \"label\" : ")
        appendString(job.label, to: &sink)
        sink.append(",\n  \"photos\" : [\n")
        for photo in job.photos {
            if photo.index > 0 { sink.append(",\n") }
            appendEntry(photo, of: job, to: &sink)
        }
        sink.append("\n  ]\n}")
    }

    /// One photo, keys in order; what does not apply is left out.
    private static func appendEntry(_ photo: PhotoRecord, of job: Job, to sink: inout DurableFile.Sink) {
        let done = photo.state == .done
        sink.append("    {\n")
        if done { sink.append("      \"height\" : \(photo.height),\n") }
        sink.append("      \"index\" : \(photo.index),\n      \"name\" : ")
        appendString(job.name(of: photo.index), to: &sink)
        if done {
            sink.append(",\n      \"path\" : ")
            appendString(job.outputPath(of: photo), to: &sink)
        }
        if !photo.reason.isEmpty {
            sink.append(",\n      \"reason\" : ")
            appendString(photo.reason, to: &sink)
        }
        if !photo.failedStage.isEmpty {
            sink.append(",\n      \"stage\" : ")
            appendString(photo.failedStage, to: &sink)
        }
        sink.append(",\n      \"state\" : ")
        appendString(photo.state.rawValue, to: &sink)
        sink.append(",\n      \"url\" : ")
        appendString(job.url(of: photo.index), to: &sink)
        if done { sink.append(",\n      \"width\" : \(photo.width)") }
        sink.append("\n    }")
    }

    /// A JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    static func appendString(_ string: String, to sink: inout DurableFile.Sink) {
        let quote = UInt8(ascii: "\"")
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == quote || $0 == UInt8(ascii: "\\") }) {
            sink.append(contentsOf: CollectionOfOne(quote))
            sink.append(contentsOf: string.utf8)
            sink.append(contentsOf: CollectionOfOne(quote))
            return
        }
        var escaped: [UInt8] = [quote]
        escaped.reserveCapacity(string.utf8.count + 2)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: escaped += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: escaped += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: escaped += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: escaped += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: escaped += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0..<0x20: escaped += Array("\\u00".utf8) + [hexDigit(byte >> 4), hexDigit(byte & 0xF)]
            default: escaped.append(byte)
            }
        }
        escaped.append(UInt8(ascii: "\""))
        sink.append(contentsOf: escaped)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
