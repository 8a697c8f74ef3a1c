import Foundation
import PhotoClusterCore
import PhotoClusterScheduling

/// `index.json` in a job's output directory: every photo's state, reason and output path, in the
/// layout `JSONEncoder` gives it (pretty-printed, keys sorted, slashes as they are).
///
/// Written photo by photo into the file as it is made: a million photos make a file of a few
/// hundred megabytes, which `JSONEncoder` would hold in memory two or three times over. Each
/// entry is put together as bytes, straight from the job's strings: making `String`s for every
/// name, URL and path took 3 µs a photo, and held up the job's end by 0.3 s at 100,000 photos.
enum JobIndex {
    static func write(_ job: Job, in directory: JobDirectory) throws {
        try directory.write(named: "index.json", tag: job.id) { sink in write(job, into: &sink) }
    }

    static func write(_ job: Job, into sink: inout DurableFile.Sink) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(DurableFile.Sink.pieceSize + 4096)
        var path: [UInt8] = []
        bytes.append(contentsOf: "{\n  \"job\" : ".utf8)
        appendString(job.id, to: &bytes)
        bytes.append(contentsOf: ",\n  \"label\" : ".utf8)
        appendString(job.label, to: &bytes)
        bytes.append(contentsOf: ",\n  \"photos\" : [\n".utf8)
        for photo in job.photos {
            if photo.index > 0 { bytes.append(contentsOf: ",\n".utf8) }
            appendEntry(photo, of: job, to: &bytes, path: &path)
            if bytes.count >= DurableFile.Sink.pieceSize {
                sink.append(contentsOf: bytes)
                bytes.removeAll(keepingCapacity: true)
            }
        }
        bytes.append(contentsOf: "\n  ]\n}".utf8)
        sink.append(contentsOf: bytes)
    }

    /// One photo, keys in order; what does not apply is left out. `path`: room for its output path.
    private static func appendEntry(_ photo: PhotoRecord, of job: Job, to bytes: inout [UInt8], path: inout [UInt8]) {
        let done = photo.state == .done
        bytes.append(contentsOf: "    {\n".utf8)
        if done {
            bytes.append(contentsOf: "      \"height\" : ".utf8)
            appendDecimal(photo.height, to: &bytes)
            bytes.append(contentsOf: ",\n".utf8)
        }
        bytes.append(contentsOf: "      \"index\" : ".utf8)
        appendDecimal(photo.index, to: &bytes)
        bytes.append(contentsOf: ",\n      \"name\" : ".utf8)
        job.strings.withBytes(job.nameNumber(of: photo.index)) { appendString($0, to: &bytes) }
        if done {
            bytes.append(contentsOf: ",\n      \"path\" : ".utf8)
            path.removeAll(keepingCapacity: true)
            job.appendOutputPath(of: photo.index, format: photo.outputFormat, to: &path)
            path.withUnsafeBufferPointer { appendString($0, to: &bytes) }
        }
        if !photo.reason.isEmpty {
            bytes.append(contentsOf: ",\n      \"reason\" : ".utf8)
            appendString(photo.reason, to: &bytes)
        }
        if !photo.failedStage.isEmpty {
            bytes.append(contentsOf: ",\n      \"stage\" : ".utf8)
            appendString(photo.failedStage, to: &bytes)
        }
        bytes.append(contentsOf: ",\n      \"state\" : ".utf8)
        appendString(photo.state.rawValue, to: &bytes)
        bytes.append(contentsOf: ",\n      \"url\" : ".utf8)
        job.strings.withBytes(job.urlNumber(of: photo.index)) { appendString($0, to: &bytes) }
        if done {
            bytes.append(contentsOf: ",\n      \"width\" : ".utf8)
            appendDecimal(photo.width, to: &bytes)
        }
        bytes.append(contentsOf: "\n    }".utf8)
    }

    private static func appendDecimal(_ value: UInt32, to bytes: inout [UInt8]) {
        let start = bytes.count
        var rest = value
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendString($0, to: &bytes) }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    static func appendString(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        bytes.append(quote)
        guard utf8.contains(where: { $0 < 0x20 || $0 == quote || $0 == backslash }) else {
            bytes.append(contentsOf: utf8)
            bytes.append(quote)
            return
        }
        for byte in utf8 {
            switch byte {
            case quote: bytes += [backslash, quote]
            case backslash: bytes += [backslash, backslash]
            case 0x0A: bytes += [backslash, UInt8(ascii: "n")]
            case 0x0D: bytes += [backslash, UInt8(ascii: "r")]
            case 0x09: bytes += [backslash, UInt8(ascii: "t")]
            case 0x08: bytes += [backslash, UInt8(ascii: "b")]
            case 0x0C: bytes += [backslash, UInt8(ascii: "f")]
            case 0..<0x20: bytes += Array("\\u00".utf8) + [hexDigit(byte >> 4), hexDigit(byte & 0xF)]
            default: bytes.append(byte)
            }
        }
        bytes.append(quote)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
