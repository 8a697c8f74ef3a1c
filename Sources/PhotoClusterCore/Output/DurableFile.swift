import Foundation

/// Writes a file so that a file that exists is complete: bytes go to a hidden temporary name
/// in the same directory and are flushed to the disk (`fsync`), then a rename puts them in
/// place, and the directory is flushed too. Without the first flush, a power cut could leave
/// the final name on an empty file; without the second, the name itself could vanish (the
/// rename is a change to the directory, which the file's own flush does not cover).
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
    /// one destination never share a temporary file. With `permissions` (say 0o600 for a secret)
    /// the temporary file must be new and gets exactly those bits before any byte is written, so
    /// the data is never readable by others, not even for a moment; without, it gets the umask's
    /// and a stale temporary file of the same tag is overwritten. A failure leaves the destination
    /// as it was and no temporary file of its own.
    public static func write(_ data: Data, to destination: URL, tag: String, permissions: mode_t? = nil) throws {
        let directory = destination.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(tag).tmp", isDirectory: false).path
        if let reason = writeAndFlush(data, to: temporary, permissions: permissions) {
            throw Failure(path: destination.path, reason: reason)
        }
        if rename(temporary, destination.path) != 0 {
            let reason = currentReason()
            unlink(temporary)
            throw Failure(path: destination.path, reason: reason)
        }
        if let reason = flushDirectory(directory.path) {
            // The name may not survive a power cut: a file reported as not written must not stay.
            unlink(destination.path)
            throw Failure(path: destination.path, reason: "cannot flush the directory: \(reason)")
        }
    }

    /// Flushes a directory's entries (a rename in it) to the disk; returns why it could not.
    private static func flushDirectory(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return currentReason() }
        defer { close(descriptor) }
        return fsync(descriptor) == 0 ? nil : currentReason()
    }

    /// Writes all of `data` to a new file and flushes it; returns why it could not, having
    /// removed the file it made (a file it could not make is not its own to remove).
    private static func writeAndFlush(_ data: Data, to path: String, permissions: mode_t?) -> String? {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (permissions == nil ? O_TRUNC : O_EXCL)
        let descriptor = open(path, flags, permissions ?? 0o666)
        guard descriptor >= 0 else { return currentReason() }
        var failure: String?
        // The umask may have narrowed the bits asked for: set them exactly.
        if let permissions, fchmod(descriptor, permissions) != 0 { failure = currentReason() }
        if failure == nil && data.withUnsafeBytes({ writeAll(descriptor, $0) }) < data.count { failure = currentReason() }
        if failure == nil && fsync(descriptor) != 0 { failure = currentReason() }
        if close(descriptor) != 0 && failure == nil { failure = currentReason() }
        if failure != nil { unlink(path) }
        return failure
    }

    private static func currentReason() -> String { String(cString: strerror(errno)) }
}
