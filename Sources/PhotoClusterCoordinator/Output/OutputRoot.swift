import Foundation
import PhotoClusterCore

/// Why a job's output directory was refused or could not be made.
struct OutputDirectoryProblem: Error, CustomStringConvertible {
    /// The directory asked for lies outside the output root (not a mere failure to create it).
    let escapes: Bool
    let message: String
    var description: String { message }
}

/// Where a coordinator writes: only under its `--output-root`.
///
/// A client names its output directory relative to the root (an absolute path inside the root
/// is taken too). `..` that climbs out of the root is refused, and so is any directory on the way
/// that is, or has become, a link to somewhere outside it: each step is opened relative to the
/// one before, and where the opened directory really is (`/proc/self/fd`) is checked before the
/// next, so nothing can be swapped between the check and the use. The job keeps the last
/// descriptor (`JobDirectory`) and writes every file through it.
///
/// With no root (`nil`, the embedded cluster) a job writes where its user says: the
/// coordinator is the user's own process.
struct OutputRoot {
    /// The root, with every link in it resolved.
    let path: URL
    /// The root as configured (an absolute path a client gives may start with either).
    private let configured: String

    /// Creates the root if it is missing.
    init(_ root: URL) throws {
        configured = root.standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw OutputDirectoryProblem(escapes: false, message: "cannot create the output root \(root.path): \((error as NSError).localizedDescription)")
        }
        guard let real = realpath(root.path, nil) else {
            throw OutputDirectoryProblem(escapes: false, message: "cannot resolve the output root \(root.path): \(String(cString: strerror(errno)))")
        }
        defer { free(real) }
        path = URL(fileURLWithPath: String(cString: real), isDirectory: true)
    }

    /// Opens the directory `requested` names under the root, creating what is missing.
    func openDirectory(_ requested: String) throws -> JobDirectory {
        let components = try confinedComponents(of: requested)
        var descriptor = open(path.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("cannot open the output root \(path.path)") }
        var reached = path
        for component in components {
            mkdirat(descriptor, component, 0o755)
            let next = openat(descriptor, component, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            let reason = String(cString: strerror(errno))
            close(descriptor)
            guard next >= 0 else {
                throw OutputDirectoryProblem(escapes: false, message: "cannot create the output directory \(reached.appendingPathComponent(component).path): \(reason)")
            }
            descriptor = next
            reached = reached.appendingPathComponent(component, isDirectory: true)
            let real = Self.realPath(of: descriptor)
            guard let real, Self.relative(real, to: path.path) != nil else {
                close(descriptor)
                throw OutputDirectoryProblem(
                    escapes: true,
                    message: "the output directory \(requested) leaves the coordinator's output root \(path.path): \(reached.path) is a link to "
                        + "\(real ?? "somewhere else"); give a directory inside the root")
            }
        }
        guard faccessat(descriptor, ".", W_OK, AT_EACCESS) == 0 else {
            close(descriptor)
            throw OutputDirectoryProblem(escapes: false, message: "the output directory \(reached.path) is not writable by the coordinator")
        }
        return JobDirectory(path: reached, descriptor: descriptor)
    }

    /// The root-relative components of `requested`, with `.` and `..` taken out; throws when
    /// they leave the root.
    func confinedComponents(of requested: String) throws -> [String] {
        var text = requested
        if requested.hasPrefix("/") {
            let standardized = URL(fileURLWithPath: requested).standardizedFileURL.path
            guard let inside = [path.path, configured].lazy.compactMap({ Self.relative(standardized, to: $0) }).first else {
                throw escape(requested, "is not inside it; give a path relative to the root, or an absolute one inside it")
            }
            text = inside
        }
        var components: [String] = []
        for component in text.split(separator: "/") where component != "." {
            if component == ".." {
                guard !components.isEmpty else { throw escape(requested, "climbs out of it with '..'") }
                components.removeLast()
            } else {
                components.append(String(component))
            }
        }
        return components
    }

    private func escape(_ requested: String, _ why: String) -> OutputDirectoryProblem {
        OutputDirectoryProblem(escapes: true, message: "the output directory \(requested) leaves the coordinator's output root \(path.path): it \(why)")
    }

    private func failure(_ what: String) -> OutputDirectoryProblem {
        OutputDirectoryProblem(escapes: false, message: "\(what): \(String(cString: strerror(errno)))")
    }

    /// `path` relative to `base` when it is `base` or inside it.
    private static func relative(_ path: String, to base: String) -> String? {
        if path == base { return "" }
        return path.hasPrefix(base + "/") ? String(path.dropFirst(base.count + 1)) : nil
    }

    /// Where an open directory really is, links resolved.
    static func realPath(of descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A job's directory when there is no root: exactly where its user says, created if missing.
    static func openUnconfined(_ requested: String) throws -> JobDirectory {
        let directory = URL(fileURLWithPath: requested, isDirectory: true).standardizedFileURL
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw OutputDirectoryProblem(escapes: false, message: "cannot write \(directory.path): \((error as NSError).localizedDescription)")
        }
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw OutputDirectoryProblem(escapes: false, message: "cannot write \(directory.path): \(String(cString: strerror(errno)))") }
        guard faccessat(descriptor, ".", W_OK, AT_EACCESS) == 0 else {
            close(descriptor)
            throw OutputDirectoryProblem(escapes: false, message: "cannot write \(directory.path): the directory is not writable")
        }
        return JobDirectory(path: directory, descriptor: descriptor)
    }
}
