import Foundation
import PhotoClusterProto

/// A job's task stream as a Chrome trace-event file (the JSON Object Format that Perfetto and
/// chrome://tracing open): one process per worker (and one for the coordinator's writes of the
/// files that pass through it), one thread per lane of that worker, and one
/// complete event (`"ph": "X"`) per stage of each photo, its `ts` and `dur` in microseconds as
/// the worker reported them.
///
/// Lanes are the smallest number of rows in which a worker's stages never overlap (each stage
/// takes the first lane free when it starts), so a worker running four photos at once shows
/// four lanes, and one photo's stages usually follow each other in one lane.
public enum TraceEventFile {
    /// The file's bytes, for `trace`.
    public static func json(for trace: TaskTrace) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(document(for: trace))
    }

    /// Each span with the lane it is drawn in, per worker (spans that start first come first).
    public static func lanes(of spans: [TaskSpan]) -> [String: [(span: TaskSpan, lane: Int)]] {
        var result: [String: [(span: TaskSpan, lane: Int)]] = [:]
        for (worker, ofWorker) in Dictionary(grouping: spans, by: \.workerID) {
            var laneEnds: [UInt64] = []
            let ordered = ofWorker.sorted { ($0.span.startUnixUs, $0.span.durationUs) < ($1.span.startUnixUs, $1.span.durationUs) }
            result[worker] = ordered.map { span in
                let end = span.span.startUnixUs + span.span.durationUs
                if let free = laneEnds.firstIndex(where: { $0 <= span.span.startUnixUs }) {
                    laneEnds[free] = end
                    return (span, free)
                }
                laneEnds.append(end)
                return (span, laneEnds.count - 1)
            }
        }
        return result
    }

    struct Document: Encodable {
        let traceEvents: [Event]
        let displayTimeUnit = "ms"
        let otherData: [String: String]
    }

    /// One trace event: metadata (`M`, naming a process or thread) or a complete event (`X`).
    struct Event: Encodable {
        let name: String
        let ph: String
        let pid: Int
        let tid: Int
        var cat: String?
        var ts: UInt64?
        var dur: UInt64?
        var args: Arguments

        struct Arguments: Encodable {
            var name: String?
            var job: String?
            var photo: UInt32?
            var photoName: String?
            var attempt: UInt32?
            var worker: String?
            var outcome: String?
            var fused: Bool?
        }
    }

    static func document(for trace: TaskTrace) -> Document {
        var events: [Event] = []
        let byWorker = lanes(of: trace.spans)
        for (process, worker) in byWorker.keys.sorted().enumerated() {
            let pid = process + 1
            let placed = byWorker[worker]!
            // The coordinator's own lane holds the files it wrote for results that passed through it.
            let process = worker == "coordinator" ? "coordinator (writes)" : "worker \(worker)"
            events.append(Event(name: "process_name", ph: "M", pid: pid, tid: 0, args: .init(name: process)))
            for lane in 0...(placed.map(\.lane).max() ?? 0) {
                events.append(Event(name: "thread_name", ph: "M", pid: pid, tid: lane + 1, args: .init(name: "lane \(lane + 1)")))
            }
            for (span, lane) in placed {
                events.append(Event(
                    name: span.span.name, ph: "X", pid: pid, tid: lane + 1, cat: span.span.stage.metricLabel,
                    ts: span.span.startUnixUs, dur: span.span.durationUs,
                    args: .init(
                        job: span.jobID, photo: span.photoIndex, photoName: span.photoName, attempt: span.attempt, worker: worker,
                        outcome: span.span.outcome.label, fused: span.span.fused ? true : nil)))
            }
        }
        var other = ["job": trace.jobID, "clock": "each worker's own (microseconds since 1970)"]
        if trace.truncated { other["truncated"] = "the coordinator's task stream no longer holds this job's oldest stages" }
        return Document(traceEvents: events, otherData: other)
    }
}
