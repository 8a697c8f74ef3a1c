import Foundation

/// Writes a file so that a file that exists is complete: bytes go to a hidden temporary name
/// in the same directory and are flushed to the disk (`fsync`), then a rename puts them in
/// place, and the directory is flushed too. Without the first flush, a power cut could leave
/// the final name on an empty file; without the second, the name itself could vanish (the
/// rename is a change to the directory, which the file's own flush does not cover).
///
/// The temporary file is always new (`O_CREAT | O_EXCL | O_NOFOLLOW`): nothing already at its
/// name, a link planted there say, is ever written through.
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
    /// the temporary file gets exactly those bits before any byte is written, so the data is
    /// never readable by others, not even for a moment, and anything already at the temporary
    /// name is a failure; without, the file gets the umask's bits and a stale temporary file of
    /// the same tag (a writer killed part way) is removed first. A failure leaves the
    /// destination as it was and no temporary file of its own.
    public static func write(_ data: Data, to destination: URL, tag: String, permissions: mode_t? = nil) throws {
        let directoryPath = destination.deletingLastPathComponent().path
        let directory = open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw Failure(path: destination.path, reason: currentReason()) }
        defer { close(directory) }
        try write(data, named: destination.lastPathComponent, in: directory, path: destination.path, tag: tag, permissions: permissions)
    }

    /// Writes `data` as the file `name` of the open directory `directory` (`path` names it in
    /// errors), as `write(_:to:tag:permissions:)` does: the name is taken in that directory
    /// whatever has become of the path that led to it.
    public static func write(_ data: Data, named name: String, in directory: Int32, path: String, tag: String, permissions: mode_t? = nil) throws {
        try write(named: name, in: directory, path: path, tag: tag, permissions: permissions) { descriptor in
            data.withUnsafeBytes { writeAll(descriptor, $0) } < data.count ? currentReason() : nil
        }
    }

    /// Writes what `produce` appends to its sink as the file `name` of the open directory, as
    /// `write(_:named:in:path:tag:permissions:)` does: for a file too large to hold in memory at
    /// once, it leaves in pieces of `Sink.pieceSize` bytes. An error `produce` throws is a
    /// failure like any other: the destination stays as it was.
    public static func write(named name: String, in directory: Int32, path: String, tag: String, produce: (inout Sink) throws -> Void) throws {
        try write(named: name, in: directory, path: path, tag: tag, permissions: nil) { descriptor in
            var sink = Sink(descriptor: descriptor)
            do {
                try produce(&sink)
            } catch {
                return "\(error)"
            }
            sink.flush()
            return sink.failure
        }
    }

    /// The one way a file is written: `content` fills a new temporary file (it answers why it
    /// could not), which is flushed, renamed into place and its directory flushed.
    private static func write(
        named name: String, in directory: Int32, path: String, tag: String, permissions: mode_t?, content: (Int32) -> String?
    ) throws {
        let temporary = ".\(name).\(tag).tmp"
        if let reason = writeAndFlush(to: temporary, in: directory, permissions: permissions, content: content) {
            throw Failure(path: path, reason: reason)
        }
        if renameat(directory, temporary, directory, name) != 0 {
            let reason = currentReason()
            unlinkat(directory, temporary, 0)
            throw Failure(path: path, reason: reason)
        }
        if fsync(directory) != 0 {
            // The name may not survive a power cut: a file reported as not written must not stay.
            let reason = currentReason()
            unlinkat(directory, name, 0)
            throw Failure(path: path, reason: "cannot flush the directory: \(reason)")
        }
    }

    /// Makes a new file, has `content` write it, and flushes it; returns why it could not, having
    /// removed the file it made (a file it could not make is not its own to remove).
    private static func writeAndFlush(to name: String, in directory: Int32, permissions: mode_t?, content: (Int32) -> String?) -> String? {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        var descriptor = openat(directory, name, flags, permissions ?? 0o666)
        if descriptor < 0 && errno == EEXIST && permissions == nil {
            // Left by a writer that was killed: remove it (a link goes, never what it points to).
            unlinkat(directory, name, 0)
            descriptor = openat(directory, name, flags, 0o666)
        }
        guard descriptor >= 0 else { return currentReason() }
        var failure: String?
        // The umask may have narrowed the bits asked for: set them exactly.
        if let permissions, fchmod(descriptor, permissions) != 0 { failure = currentReason() }
        if failure == nil { failure = content(descriptor) }
        if failure == nil && fsync(descriptor) != 0 { failure = currentReason() }
        if close(descriptor) != 0 && failure == nil { failure = currentReason() }
        if failure != nil { unlinkat(directory, name, 0) }
        return failure
    }

    /// Bytes on their way into a file written with `write(named:in:path:tag:produce:)`.
    public struct Sink {
        public static let pieceSize = 64 << 10
        private let descriptor: Int32
        private var buffer: [UInt8] = []
        /// Why a write failed; later appends are dropped.
        private(set) var failure: String?

        init(descriptor: Int32) {
            self.descriptor = descriptor
            buffer.reserveCapacity(Self.pieceSize)
        }

        public mutating func append(_ text: String) {
            var text = text
            text.withUTF8 { append(contentsOf: $0) }
        }

        public mutating func append<Bytes: Collection>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
            buffer.append(contentsOf: bytes)
            if buffer.count >= Self.pieceSize { flush() }
        }

        mutating func flush() {
            guard failure == nil, !buffer.isEmpty else { return buffer.removeAll(keepingCapacity: true) }
            if buffer.withUnsafeBytes({ writeAll(descriptor, $0) }) < buffer.count { failure = DurableFile.currentReason() }
            buffer.removeAll(keepingCapacity: true)
        }
    }

    fileprivate static func currentReason() -> String { String(cString: strerror(errno)) }
}
