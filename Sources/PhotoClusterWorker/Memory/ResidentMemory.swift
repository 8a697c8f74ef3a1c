import Foundation

/// The process's resident memory, as the kernel counts it against a memory limit: the second
/// field of /proc/self/statm, in pages. Read once a heartbeat, sent in it and exported as a
/// metric, so an operator sees what a long-running worker settles at beside what its budget and
/// stage cache account for.
enum ResidentMemory {
    private static let pageBytes = max(1, Int(sysconf(Int32(_SC_PAGESIZE))))

    /// Bytes resident now; nil where /proc is not mounted or says something else.
    static func bytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return nil }
        return pages * pageBytes
    }
}
