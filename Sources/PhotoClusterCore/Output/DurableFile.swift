import Foundation

/// Writes a file so that a file that exists is complete: bytes go to a hidden temporary name
/// in the same directory and are flushed to the disk (`fsync`), then a rename puts them in
/// place. Without the flush, a power cut could leave the final name on an empty file.
///
/// Blocks for as long as the disk takes: call it from a thread of its own (see
/// `BlockingWorkThreads`), never from an event loop or an operation queue.
public enum DurableFile {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let reason: String
        public var description: String { "cannot write \(path): \(reason)" }

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Writes `data` to `destination`. `tag` is part of the temporary name, so two writers of
    /// one destination never share a temporary file. A failure leaves neither the destination
    /// nor the temporary file behind.
    public static func write(_ data: Data, to destination: URL, tag: String) throws {
        let directory = destination.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(tag).tmp", isDirectory: false).path
        if let reason = writeAndFlush(data, to: temporary) ?? (rename(temporary, destination.path) == 0 ? nil : currentReason()) {
            unlink(temporary)
            throw Failure(path: destination.path, reason: reason)
        }
    }

    /// Writes all of `data` to a new file and flushes it; returns why it could not.
    private static func writeAndFlush(_ data: Data, to path: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return currentReason() }
        var failure: String?
        if data.withUnsafeBytes({ writeAll(descriptor, $0) }) < data.count { failure = currentReason() }
        if failure == nil && fsync(descriptor) != 0 { failure = currentReason() }
        if close(descriptor) != 0 && failure == nil { failure = currentReason() }
        return failure
    }

    private static func currentReason() -> String { String(cString: strerror(errno)) }
}
