import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Shows a job's progress while it runs: a bar redrawn in place when stdout is a terminal (and
/// not `--json`), otherwise a line on stderr at most once a second, so a long job never looks
/// stuck and stdout stays clean for the JSON report. Both carry the pace over the last ten
/// seconds and the time left at it (`ProgressRate`). Used from the one thread that reads the
/// job's events.
final class ProgressReporter {
    private let total: Int
    private let live: Bool
    private var lastLine = Date.distantPast
    private var drewBar = false
    private let started = MonotonicInstant.now
    private var rate = ProgressRate()

    init(total: Int, enabled: Bool) {
        self.total = total
        self.live = enabled && Terminal.stdoutIsTerminal
    }

    func started(job: String, place: String) {
        let message = "job \(job): \(total) photo\(total == 1 ? "" : "s") on \(place)"
        if live { Terminal.write(message + "\n") } else { Terminal.error(message) }
    }

    func update(_ counts: Photocluster_V1_JobProgress) {
        rate.record(done: Int(counts.done), at: MonotonicInstant.now.seconds(since: started))
        let pace = rate.summary(total: Int(counts.total))
        if live {
            Terminal.write("\r" + Self.bar(counts, width: 30) + pace + "\u{1B}[K")
            drewBar = true
        } else if Date().timeIntervalSince(lastLine) >= 1 || counts.done == counts.total {
            lastLine = Date()
            Terminal.error("progress: \(Self.counts(counts))\(pace)")
        }
    }

    func finish() {
        if drewBar { Terminal.write("\r\u{1B}[K") }
    }

    static func bar(_ counts: Photocluster_V1_JobProgress, width: Int) -> String {
        let fraction = counts.total == 0 ? 1 : Double(counts.done) / Double(counts.total)
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " + Self.counts(counts)
    }

    static func counts(_ counts: Photocluster_V1_JobProgress) -> String {
        var text = "\(counts.done)/\(counts.total) done"
        if counts.failed > 0 { text += ", \(counts.failed) failed" }
        if counts.cancelled > 0 { text += ", \(counts.cancelled) cancelled" }
        return text
    }
}
