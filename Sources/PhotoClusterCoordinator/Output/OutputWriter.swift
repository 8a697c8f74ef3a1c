import Foundation

/// Writes a result so that a file that exists is complete: bytes go to a hidden temporary name
/// in the same directory, then a rename puts them in place.
enum OutputWriter {
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot write \(path): \(reason)" }
    }

    static func write(_ data: Data, to destination: URL, tag: String) throws {
        let directory = destination.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(tag).tmp", isDirectory: false)
        do {
            try data.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw Failure(path: destination.path, reason: (error as NSError).localizedDescription)
        }
        if rename(temporary.path, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw Failure(path: destination.path, reason: reason)
        }
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
