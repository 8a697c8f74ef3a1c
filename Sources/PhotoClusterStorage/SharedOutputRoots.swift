import Foundation
import PhotoClusterCore

/// The directories of shared file systems a worker may write outputs into (`cluster worker
/// --shared-root DIR`): a job's shared directory must lie inside one of them, after symbolic
/// links are resolved, so a client cannot have a worker write elsewhere on its host.
public struct SharedOutputRoots: Sendable, CustomStringConvertible {
    /// Each root as given, and its real path (symbolic links resolved) when it was opened.
    public let roots: [(given: String, real: String)]

    /// Each path must be an existing directory.
    public init(_ paths: [String]) throws {
        roots = try paths.map { path in
            guard path.hasPrefix("/") else { throw SharedPathError(path: path, reason: "a shared root must be an absolute path") }
            guard let real = Self.realPath(path) else { throw SharedPathError(path: path, reason: "it does not exist") }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw SharedPathError(path: path, reason: "it is not a directory")
            }
            return (path, real)
        }
    }

    public static let none = try! SharedOutputRoots([])

    public var description: String { roots.isEmpty ? "none" : roots.map(\.given).joined(separator: ", ") }

    /// The real directory for a job's `directory` (as `OutputPlace.shared` normalised it), made
    /// if missing, or why it may not be used here. It is walked down from the root one component
    /// at a time, each resolved before the next is made, so nothing is created outside the root
    /// even where a symbolic link leads out of it.
    public func directory(for directory: String) throws -> URL {
        let match = roots.lazy.compactMap { root -> (root: (given: String, real: String), relative: String)? in
            for base in [root.given, root.real] where Self.isInside(directory, base) {
                return (root, String(directory.dropFirst(base.hasSuffix("/") ? base.count - 1 : base.count)))
            }
            return nil
        }.first
        guard let (root, relative) = match else {
            let reason = roots.isEmpty
                ? "this worker has no shared output root: start it with --shared-root DIR (the shared file system's mount point)"
                : "it is outside this worker's shared roots (\(description))"
            throw SharedPathError(path: directory, reason: reason)
        }
        var current = root.real
        for component in relative.split(separator: "/") {
            let next = current + "/" + component
            if mkdir(next, 0o777) != 0 && errno != EEXIST {
                throw SharedPathError(path: directory, reason: "cannot create \(next): \(String(cString: strerror(errno)))")
            }
            var isDirectory: ObjCBool = false
            guard let real = Self.realPath(next), Self.isInside(real, root.real) else {
                throw SharedPathError(path: directory, reason: "a symbolic link takes it outside the shared root \(root.given)")
            }
            guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw SharedPathError(path: directory, reason: "\(next) is not a directory")
            }
            current = real
        }
        return URL(fileURLWithPath: current, isDirectory: true)
    }

    /// Writes `data` as `name` in `directory` (from `directory(for:)`) so that the file is whole
    /// or absent, as the coordinator writes its own (`DurableFile`: a temporary file flushed to
    /// the disk, renamed, and the directory flushed, which matters as much on a file server).
    public static func write(_ data: Data, named name: String, in directory: URL, tag: String) throws {
        try DurableFile.write(data, to: directory.appendingPathComponent(name, isDirectory: false), tag: tag)
    }

    /// Whether the job directory `directory` lies inside one of these roots, by its path alone.
    public func contains(_ directory: String) -> Bool {
        roots.contains { Self.isInside(directory, $0.given) || Self.isInside(directory, $0.real) }
    }

    /// Whether `path` is `root` or below it, component by component.
    static func isInside(_ path: String, _ root: String) -> Bool {
        let root = root.hasSuffix("/") ? String(root.dropLast()) : root
        return root.isEmpty || path == root || path.hasPrefix(root + "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
