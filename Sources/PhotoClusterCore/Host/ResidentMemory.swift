import Foundation

/// The process's resident memory, as the kernel counts it against a memory limit: the second
/// field of /proc/self/statm, in pages. A worker reads it once a heartbeat and a coordinator
/// once a second, for their metrics and status replies, so an operator sees what a long-running
/// process settles at beside what its budgets account for.
public enum ResidentMemory {
    private static let pageBytes = max(1, Int(sysconf(Int32(_SC_PAGESIZE))))

    /// Bytes resident now; nil where /proc is not mounted or says something else.
    public static func bytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return nil }
        return pages * pageBytes
    }
}
