import Foundation
import Glibc
import PhotoClusterCore

/// A job's output directory, held open: every file of the job is made relative to this
/// descriptor (`DurableFile`, `openat`, `renameat`), so a directory renamed, or replaced by a
/// link, after the job was accepted cannot send the job's files anywhere else.
///
/// `@unchecked Sendable`: `descriptor` and `path` never change, and the descriptor is closed
/// only when the last reference goes (writer threads hold one while they write).
final class JobDirectory: @unchecked Sendable {
    /// Where it is (as resolved when it was opened), for messages, `index.json` and status.
    let path: URL
    private let descriptor: Int32

    init(path: URL, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The path a file of this directory is shown under.
    func file(_ name: String) -> URL { path.appendingPathComponent(name, isDirectory: false) }

    /// Writes `name` durably (see `DurableFile`). Blocks on the disk: writer threads only.
    func write(_ data: Data, named name: String, tag: String) throws {
        try DurableFile.write(data, named: name, in: descriptor, path: file(name).path, tag: tag)
    }

    /// Writes `name` durably from what `produce` appends, piece by piece (see `DurableFile`).
    func write(named name: String, tag: String, produce: (inout DurableFile.Sink) throws -> Void) throws {
        try DurableFile.write(named: name, in: descriptor, path: file(name).path, tag: tag, produce: produce)
    }

    /// The contents of the regular file `name` (at most `limit` bytes), or nil when there is none
    /// (a link is not followed). Blocks on the disk: writer threads only.
    func read(named name: String, limit: Int = 64 << 10) -> Data? {
        let file = openat(descriptor, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < limit {
            let count = Glibc.read(file, &buffer, buffer.count)
            if count <= 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        return data
    }

    /// Gives the file `name` the name `newName` too, unless `newName` exists already (false
    /// then): of two writers racing for a new name, exactly one wins. The directory is flushed.
    func linkExclusively(_ name: String, as newName: String) throws -> Bool {
        guard linkat(descriptor, name, descriptor, newName, 0) == 0 else {
            if errno == EEXIST { return false }
            throw OutputDirectoryProblem(escapes: false, message: "cannot write \(file(newName).path): \(String(cString: strerror(errno)))")
        }
        fsync(descriptor)
        return true
    }

    /// Removes the file `name` (a link goes, never what it points to).
    func remove(named name: String) {
        unlinkat(descriptor, name, 0)
    }

    /// The names in the directory; `hiddenOnly`, those that start with a dot (the others, a
    /// million outputs perhaps, are passed over without being made into strings).
    func names(hiddenOnly: Bool = false) -> [String] {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            if hiddenOnly && entry.pointee.d_name.0 != CChar(bitPattern: UInt8(ascii: ".")) { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
