import Foundation
import PhotoClusterCore

/// The job's output directory (its files are written with `DurableFile`: complete or absent).
enum OutputWriter {
    /// Creates the job's directory, or says why it cannot.
    static func prepareDirectory(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw DurableFile.Failure(path: directory.path, reason: (error as NSError).localizedDescription)
        }
        guard FileManager.default.isWritableFile(atPath: directory.path) else {
            throw DurableFile.Failure(path: directory.path, reason: "the directory is not writable")
        }
    }
}
