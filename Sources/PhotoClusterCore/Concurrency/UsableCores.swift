import Foundation

/// How many cores this process can keep busy: the CPUs its affinity mask allows (`taskset`, a
/// container's cpuset), capped by a cgroup v2 CPU quota (`docker run --cpus 2`, a pod's CPU
/// limit), rounded up, at least 1. Foundation's `activeProcessorCount` counts every online CPU
/// of the host, so a worker pinned to one core would run a photo per host core on it, each
/// preempting the others.
public enum UsableCores {
    /// Computed once: the defaults of worker concurrency and of the embedded cluster read it.
    public static let count: Int = {
        let online = ProcessInfo.processInfo.activeProcessorCount
        var cores = min(online, allowedByAffinity() ?? online)
        if let text = try? String(contentsOfFile: "/sys/fs/cgroup/cpu.max", encoding: .utf8), let quota = quotaCores(cpuMax: text) {
            cores = min(cores, quota)
        }
        return max(1, cores)
    }()

    /// CPUs in the calling thread's affinity mask, from `/proc/thread-self/status`; nil when it
    /// cannot be read. Threads inherit the mask of the thread that made them, so at start-up it
    /// is the process's. (`sched_getaffinity` needs `_GNU_SOURCE`, which Swift's Glibc lacks.)
    public static func allowedByAffinity(status path: String = "/proc/thread-self/status") -> Int? {
        guard let status = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
            return cpuCount(list: line.dropFirst("Cpus_allowed_list:".count))
        }
        return nil
    }

    /// CPUs in a kernel CPU list such as `0-3,8,10-11` (7); nil for a list it cannot read.
    public static func cpuCount<S: StringProtocol>(list: S) -> Int? {
        var count = 0
        for range in list.split(separator: ",") {
            let bounds = range.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            switch bounds.count {
            case 1:
                guard bounds[0] != nil else { return nil }
                count += 1
            case 2:
                guard let low = bounds[0], let high = bounds[1], low <= high else { return nil }
                count += high - low + 1
            default: return nil
            }
        }
        return count > 0 ? count : nil
    }

    /// Cores granted by a cgroup v2 `cpu.max` line (`QUOTA PERIOD` in microseconds, or `max
    /// PERIOD` for no limit), rounded up: `150000 100000` is 2. Nil for no limit or a line it
    /// cannot read.
    public static func quotaCores(cpuMax text: String) -> Int? {
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]), quota > 0, period > 0 else { return nil }
        return (quota + period - 1) / period
    }
}
