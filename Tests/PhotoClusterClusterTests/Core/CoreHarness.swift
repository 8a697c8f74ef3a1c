import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterProtocol
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling
@testable import PhotoClusterSimulation

/// A `CoordinatorCore` driven by hand: events go in at a virtual time, and every action it
/// takes is kept, so a test says exactly what the coordinator does, with no socket, thread or
/// sleep. `refuseSendsTo` makes the sends to those workers fail, as a ROUTER's do to a peer that
/// is gone: the refused batches go back to the core as the shells send them (`.graphsRefused`).
final class CoreHarness {
    let core: CoordinatorCore
    private let origin = ContinuousClock.now
    private(set) var time: TimeInterval = 0
    var actions: [CoordinatorAction] = []
    var refuseSendsTo: Set<String> = []
    private var jobCount = 0

    init(settings: CoordinatorCore.Settings = CoordinatorCore.Settings(coordinatorID: "test")) {
        core = CoordinatorCore(settings: settings, now: origin)
    }

    var now: MonotonicInstant { origin + .milliseconds(Int64(time * 1000)) }

    /// Handles `event` now, ends the turn, and answers the actions taken, which it forgets.
    @discardableResult
    func handle(_ event: CoordinatorEvent) -> [CoordinatorAction] {
        run(event)
        run(.turnEnded)
        defer { actions = [] }
        return actions
    }

    /// Hands the core `event`, keeps the actions it takes, and hands back the batches of graphs
    /// sent to `refuseSendsTo` once each pass is through, as the shells do.
    private func run(_ event: CoordinatorEvent) {
        var next: CoordinatorEvent? = event
        var taken: [CoordinatorAction] = []
        while let event = next {
            next = nil
            core.handle(event, now: now, wallClock: Date(timeIntervalSince1970: time))
            core.takeActions(into: &taken)
            actions += taken
            let refused = taken.compactMap { RefusedGraphs($0) }.filter { refuseSendsTo.contains($0.worker) }
            if !refused.isEmpty { next = .graphsRefused(refused) }
        }
    }

    func advance(_ seconds: TimeInterval) { time += seconds }

    // MARK: - Workers

    @discardableResult
    func from(_ worker: String, _ body: Photocluster_V1_WorkerToCoordinator.OneOf_Body, photos: [Data] = []) -> [CoordinatorAction] {
        var message = Photocluster_V1_WorkerToCoordinator()
        message.body = body
        return handle(.fromWorker(id: worker, key: nil, message: message, photos: photos[...]))
    }

    @discardableResult
    func hello(
        _ worker: String, concurrency: UInt32 = 1, incarnation: String? = nil, holding: [PhotoRef] = [], protocolVersion: UInt32 = ProtocolVersions.current,
        helloNumber: UInt32 = 0
    ) -> [CoordinatorAction] {
        from(worker, .hello(.with {
            $0.protocolVersion = protocolVersion
            $0.helloNumber = helloNumber
            $0.workerID = worker
            $0.concurrency = concurrency
            $0.incarnation = incarnation ?? "\(worker)-1"
            $0.inFlight = holding.map { ref in .with { $0.jobID = ref.job; $0.photoIndex = ref.index } }
        }))
    }

    @discardableResult
    func credit(_ worker: String, _ grant: UInt32) -> [CoordinatorAction] { from(worker, .credit(.with { $0.grant = grant })) }

    @discardableResult
    func heartbeat(_ worker: String, sequence: UInt64, holding: [PhotoRef], freeSlots: UInt32 = 0, helloNumber: UInt32 = 0) -> [CoordinatorAction] {
        from(worker, .heartbeat(.with {
            $0.assignSequence = sequence
            $0.helloNumber = helloNumber
            $0.held = holding.map { ref in .with { $0.jobID = ref.job; $0.photoIndex = ref.index } }
            $0.freeSlots = freeSlots
        }))
    }

    @discardableResult
    func result(_ worker: String, _ ref: PhotoRef, attempt: UInt32, graphEpoch: UInt64 = 0, credit: UInt32 = 0) -> [CoordinatorAction] {
        from(worker, .reports(.with {
            $0.reports = [.with { report in
                report.result = .with {
                    $0.jobID = ref.job
                    $0.photoIndex = ref.index
                    $0.attempt = attempt
                    $0.graphEpoch = graphEpoch
                    $0.format = .jpeg
                    $0.photoInFrame = true
                }
            }]
            $0.credit = credit
        }), photos: [Data(repeating: 7, count: 16)])
    }

    // MARK: - Jobs

    /// A batch job of photos named p0, p1, …, each with its own URL.
    @discardableResult
    func submit(photos: Int, viewport: Photocluster_V1_Viewport? = nil) -> String {
        submit(files: (0..<photos).map { "\($0).jpg" }, viewport: viewport)
    }

    /// A batch job of one photo per file name (p0 at http://photos.test/JOB/FILE, p1, …), written
    /// in `format` with `image`'s options.
    @discardableResult
    func submit(
        files: [String], format: Photocluster_V1_OutputFormat = .keep, image: Photocluster_V1_ImageOptions = .init(),
        viewport: Photocluster_V1_Viewport? = nil
    ) -> String {
        jobCount += 1
        let id = "job\(jobCount)"
        var submit = Photocluster_V1_SubmitJob()
        submit.photos = files.enumerated().map { index, file in .with { $0.name = "p\(index)"; $0.url = "http://photos.test/\(id)/\(file)" } }
        submit.format = format
        submit.image = image
        if let viewport {
            submit.viewportMode = true
            submit.viewport = viewport
        }
        let job = Job(id: id, submit: submit, outputDirectory: URL(fileURLWithPath: "/out/\(id)"), now: Date(timeIntervalSince1970: 0))
        handle(.jobOpened(job))
        return id
    }

    // MARK: - Reading actions

    /// The graphs sent, in order: (worker, sequence, [(ref, attempt)]).
    static func graphs(in actions: [CoordinatorAction]) -> [(worker: String, sequence: UInt64, photos: [String])] {
        actions.compactMap {
            guard case .sendGraphs(let worker, let batch, let sequence) = $0 else { return nil }
            return (worker, sequence, batch.sent.map { "\($0.ref.job)/\($0.ref.index)@\($0.attempt)" })
        }
    }

    /// The messages other than graphs sent to workers, as "worker: kind".
    static func messages(in actions: [CoordinatorAction]) -> [String] {
        actions.compactMap {
            guard case .sendToWorker(let worker, let body) = $0 else { return nil }
            return "\(worker): \(SimulationRun.name(of: body))"
        }
    }

    static func settled(in actions: [CoordinatorAction]) -> [String] {
        actions.flatMap { action -> [String] in
            guard case .photosSettled(let job, let photos, _) = action else { return [] }
            return photos.map { "\(job)/\($0.photo.index) \($0.photo.state)" }
        }
    }

    static func writes(in actions: [CoordinatorAction]) -> [String] {
        actions.compactMap {
            guard case .writeResult(let result, let worker, _, let targets) = $0 else { return nil }
            return "\(result.jobID)/\(targets.map(\.index)) from \(worker)"
        }
    }
}
