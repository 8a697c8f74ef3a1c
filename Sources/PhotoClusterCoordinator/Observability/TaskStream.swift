import PhotoClusterProto

/// The task stream: the stages workers ran lately, each a bar in its worker's lane on the
/// dashboard and an event of `cluster trace`. A ring of at most `capacity` spans; once full, each
/// new span takes the oldest one's place, so what it holds is bounded whatever the rate.
/// Loop-owned (`CoordinatorNode`), like the other observability records.
struct TaskStream {
    struct Span: Equatable {
        /// Counts the spans recorded, from 1: a reader asks for those after the last it saw.
        let sequence: UInt64
        let worker: String
        let job: String
        let photo: UInt32
        let attempt: UInt32
        let stage: Photocluster_V1_Stage
        let name: String
        /// On the worker's clock, microseconds since 1970.
        let startMicros: UInt64
        let durationMicros: UInt64
        let outcome: Photocluster_V1_SpanOutcome
        let fused: Bool
    }

    /// The lane of the coordinator's own stages (writing the files of results that pass through it).
    static let coordinatorLane = "coordinator"

    /// The most spans kept; 0 keeps none.
    let capacity: Int
    private var ring: [Span] = []
    /// Where the oldest span is in `ring` once it is full.
    private var oldest = 0
    /// Spans recorded so far: the newest one's sequence.
    private(set) var recorded: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var isEnabled: Bool { capacity > 0 }

    /// Spans the ring has room for without growing (its capacity once full).
    var slotsReserved: Int { ring.capacity }

    /// Whether spans were given up to make room (a reader may have missed some).
    var hasDropped: Bool { recorded > UInt64(ring.count) }

    /// The sequence of the oldest span kept (`recorded + 1` when none is).
    private var firstSequence: UInt64 { recorded - UInt64(ring.count) + 1 }

    mutating func record(worker: String, job: String, photo: UInt32, attempt: UInt32, _ span: Photocluster_V1_StageSpan) {
        guard isEnabled else { return }
        recorded += 1
        let entry = Span(
            sequence: recorded, worker: worker, job: job, photo: photo, attempt: attempt, stage: span.stage, name: span.name,
            startMicros: span.startUnixUs, durationMicros: span.durationUs, outcome: span.outcome, fused: span.fused)
        if ring.count < capacity {
            // Doubling, but never past the capacity: appends alone would round 100,000 spans up
            // to room for 131,072 (3.5 MB of a long-running coordinator that nothing ever uses).
            if ring.count == ring.capacity { ring.reserveCapacity(min(capacity, max(64, ring.count * 2))) }
            ring.append(entry)
        } else {
            ring[oldest] = entry
            oldest = (oldest + 1) % capacity
        }
    }

    /// The span with this sequence, which must be kept.
    private func span(_ sequence: UInt64) -> Span {
        ring[(oldest + Int(sequence - firstSequence)) % ring.count]
    }

    /// The spans recorded after `sequence`, oldest first: the newest `limit` of them when there
    /// are more.
    func spans(after sequence: UInt64, limit: Int) -> [Span] {
        guard !ring.isEmpty, limit > 0, sequence < recorded else { return [] }
        let from = max(sequence + 1, firstSequence, recorded >= UInt64(limit) ? recorded - UInt64(limit) + 1 : 1)
        return (from...recorded).map(span)
    }

    /// Every span kept of one job, oldest recorded first.
    func spans(ofJob job: String) -> [Span] {
        guard !ring.isEmpty else { return [] }
        return (firstSequence...recorded).lazy.map(span).filter { $0.job == job }
    }

    /// When the oldest span kept started (the stream's reach back in time); nil when empty.
    var oldestStartMicros: UInt64? { ring.lazy.map(\.startMicros).min() }
}
