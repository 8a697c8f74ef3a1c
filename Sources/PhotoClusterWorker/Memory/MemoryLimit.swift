import Foundation
import PhotoClusterCore

/// The memory this worker process may use, and where that figure came from: `--memory-limit`,
/// the process's cgroup (v2 `memory.max`, or v1 `memory.limit_in_bytes` of its group and the
/// groups above it), or, with neither, a share of the machine's physical memory.
public struct MemoryLimit: Sendable, Equatable, CustomStringConvertible {
    public enum Source: Sendable, Equatable {
        /// `--memory-limit`.
        case option
        /// cgroup v2: the `memory.max` file that set it.
        case cgroupV2(String)
        /// cgroup v1: the `memory.limit_in_bytes` file that set it.
        case cgroupV1(String)
        /// No limit anywhere: `share` of `physical` bytes.
        case physical(share: Double, physical: Int)
    }

    /// The whole process's limit, in bytes.
    public var bytes: Int
    public var source: Source

    public init(bytes: Int, source: Source) {
        self.bytes = bytes
        self.source = source
    }

    /// The share of physical memory a worker takes when nothing limits it.
    public static let physicalShare = 0.8

    public var description: String {
        switch source {
        case .option: return "\(ByteCount(bytes)) from --memory-limit"
        case .cgroupV2(let file): return "\(ByteCount(bytes)) from cgroup v2 \(file)"
        case .cgroupV1(let file): return "\(ByteCount(bytes)) from cgroup v1 \(file)"
        case .physical(let share, let physical):
            return "\(ByteCount(bytes)): \(Int((share * 100).rounded()))% of \(ByteCount(physical)) of physical memory (no cgroup limit)"
        }
    }

    /// The limit that applies to this process: its cgroup's, else a share of physical memory.
    public static func detect(root: String = "/", physicalBytes: Int = Int(ProcessInfo.processInfo.physicalMemory)) -> MemoryLimit {
        if let limit = cgroupLimit(root: root) { return limit }
        return MemoryLimit(bytes: Int(Double(physicalBytes) * physicalShare), source: .physical(share: physicalShare, physical: physicalBytes))
    }

    /// The lowest memory limit of the process's cgroup and those above it, when any is set.
    /// `root` stands for `/` (tests point it at a copy of /proc and /sys).
    public static func cgroupLimit(root: String = "/") -> MemoryLimit? {
        let base = root.hasSuffix("/") ? String(root.dropLast()) : root
        guard let table = try? String(contentsOfFile: base + "/proc/self/cgroup", encoding: .utf8) else { return nil }
        var v1Path: String?
        var v2Path: String?
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty { v2Path = String(fields[2]) }
            if fields[1].split(separator: ",").contains("memory") { v1Path = String(fields[2]) }
        }
        if let v1Path, let limit = lowest(under: base + "/sys/fs/cgroup/memory", path: v1Path, file: "memory.limit_in_bytes", v2: false) {
            return limit
        }
        if let v2Path, let limit = lowest(under: base + "/sys/fs/cgroup", path: v2Path, file: "memory.max", v2: true) {
            return limit
        }
        return nil
    }

    /// Walks from the group up to the mount's root and keeps the lowest limit. A group that is
    /// not visible under the mount (a cgroup namespace shows it as `/`) is skipped.
    private static func lowest(under mount: String, path: String, file: String, v2: Bool) -> MemoryLimit? {
        var components = path.split(separator: "/").map(String.init)
        var best: MemoryLimit?
        while true {
            let directory = components.isEmpty ? mount : mount + "/" + components.joined(separator: "/")
            let name = directory + "/" + file
            if let text = try? String(contentsOfFile: name, encoding: .utf8), let bytes = parseLimit(text) {
                if best == nil || bytes < best!.bytes { best = MemoryLimit(bytes: bytes, source: v2 ? .cgroupV2(name) : .cgroupV1(name)) }
            }
            if components.isEmpty { break }
            components.removeLast()
        }
        return best
    }

    /// A limit file's value: nil for "max" (v2) or a value near 2^63 (v1's "unlimited").
    static func parseLimit(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = UInt64(trimmed), value < (1 << 62), value > 0 else { return nil }
        return Int(value)
    }
}
