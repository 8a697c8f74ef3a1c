import Foundation
import PhotoClusterCore

/// Writes a result so that a file that exists is complete: bytes go to a hidden temporary name
/// in the same directory and are flushed to the disk (`fsync`), then a rename puts them in
/// place. Without the flush, a power cut could leave the final name on an empty file.
///
/// Blocks for as long as the disk takes: call it from a thread of its own (see
/// `BlockingWorkThreads`), never from the loop or an operation queue.
enum OutputWriter {
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot write \(path): \(reason)" }
    }

    static func write(_ data: Data, to destination: URL, tag: String) throws {
        let directory = destination.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(tag).tmp", isDirectory: false)
        if let reason = writeAndFlush(data, to: temporary.path) {
            try? FileManager.default.removeItem(at: temporary)
            throw Failure(path: destination.path, reason: reason)
        }
        if rename(temporary.path, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw Failure(path: destination.path, reason: reason)
        }
    }

    /// Writes all of `data` to a new file and flushes it; returns why it could not.
    private static func writeAndFlush(_ data: Data, to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        var failure: String?
        if data.withUnsafeBytes({ writeAll(fd, $0) }) < data.count { failure = String(cString: strerror(errno)) }
        if failure == nil && fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        if close(fd) != 0 && failure == nil { failure = String(cString: strerror(errno)) }
        return failure
    }

    /// Creates the job's directory, or says why it cannot.
    static func prepareDirectory(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw Failure(path: directory.path, reason: (error as NSError).localizedDescription)
        }
        guard FileManager.default.isWritableFile(atPath: directory.path) else {
            throw Failure(path: directory.path, reason: "the directory is not writable")
        }
    }
}
