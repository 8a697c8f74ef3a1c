import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterWorker

/// Races in the worker engine's bookkeeping: graphs queued behind a cancelled one, a shutdown
/// meeting a suspend, and a job's queues going away while its next photo arrives. Every graph
/// must end with exactly one outcome (each returns one credit), and a finished job must leave
/// no queues behind.
final class EngineRaceTests: XCTestCase {
    /// What is raced here is the engine's bookkeeping, not downloading: photos come from memory.
    private var source: MemoryPhotoSource!

    override func setUpWithError() throws {
        source = try MemoryPhotoSource(samplePhotos: ["clock.jpg"])
    }

    private func graph(job: String = "j", photo: UInt32 = 0, attempt: UInt32, filters: [String] = ["sepia"]) throws -> Photocluster_V1_PhotoGraph {
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = job
        graph.photoIndex = photo
        graph.name = "clock"
        graph.url = MemoryPhotoSource.url(of: "clock.jpg")
        graph.filters = try ClusterHarness.filterSpecs(filters)
        graph.attempt = attempt
        return graph
    }

    private func makeEngine(
        concurrency: Int = 1, filters: FilterRegistry = .builtIn, log: OutcomeLog,
        then: @escaping @Sendable (PhotoWork, PhotoWork.Outcome) -> Void = { _, _ in }
    ) -> WorkerEngine {
        WorkerEngine(
            configuration: .init(concurrency: concurrency, downloadSlots: 2).allowingLoopback(), filters: filters,
            onStage: { work, stage, _, _, _ in log.stages.withLock { $0.append((work.graph.attempt, stage)) } },
            source: source,
            onOutcome: { work, outcome in
                log.record(work, outcome)
                then(work, outcome)
            })
    }

    // MARK: - Graphs queued behind a cancelled one

    /// The job is suspended, so the first graph cannot end while the photo is cancelled and
    /// sent again, twice: the cancelled successor ends at once, the newest one runs.
    func testACancelledSuccessorEndsAtOnceAndTheNewestRuns() throws {
        let log = OutcomeLog()
        let engine = makeEngine(log: log)
        defer { engine.shutdown() }
        try queueASuccessor(on: engine)
        engine.cancel(job: "j", photos: [0])
        XCTAssertEqual(log.kinds(attempt: 2), ["cancelled"], "the cancelled successor ended at once")
        engine.submit(try graph(attempt: 3))
        engine.setSuspended(job: "j", false)

        assertEachEndsOnce([1: "cancelled", 2: "cancelled", 3: "encoded"], log: log, engine: engine)
        XCTAssertEqual(log.stages(attempt: 2), [], "the cancelled successor never ran")
    }

    /// A newer graph replacing a successor that was never cancelled ends the older one.
    func testANewerSuccessorEndsTheOneItReplaces() throws {
        let log = OutcomeLog()
        let engine = makeEngine(log: log)
        defer { engine.shutdown() }
        try queueASuccessor(on: engine)
        engine.submit(try graph(attempt: 3))
        XCTAssertEqual(log.kinds(attempt: 2), ["cancelled"], "the replaced successor ended at once")
        engine.setSuspended(job: "j", false)

        assertEachEndsOnce([1: "cancelled", 2: "cancelled", 3: "encoded"], log: log, engine: engine)
    }

    /// Suspends the job so nothing ends on its own, then sends the photo (attempt 1), cancels it
    /// and sends it again (attempt 2): attempt 2 waits behind attempt 1 as its successor.
    private func queueASuccessor(on engine: WorkerEngine) throws {
        engine.setSuspended(job: "j", true)
        engine.submit(try graph(attempt: 1))
        engine.cancel(job: "j", photos: [0])
        engine.submit(try graph(attempt: 2))
    }

    /// Waits until every attempt in `expected` has ended and the engine holds nothing of the job
    /// (see `allDelivered`), then checks that each ended once, as expected.
    private func assertEachEndsOnce(
        _ expected: [UInt32: String], log: OutcomeLog, engine: WorkerEngine, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertTrue(eventually(timeout: 10) { expected.keys.allSatisfy { !log.kinds(attempt: $0).isEmpty } }, "\(log.all)", file: file, line: line)
        XCTAssertTrue(eventually(timeout: 10) { engine.allDelivered(job: "j") }, "the engine still holds the job", file: file, line: line)
        for (attempt, kind) in expected.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(log.kinds(attempt: attempt), [kind], "attempt \(attempt)", file: file, line: line)
        }
        XCTAssertEqual(engine.inFlightCount, 0, file: file, line: line)
    }

    /// A closed job's successor ends cancelled at once and is never downloaded.
    func testAClosedJobsSuccessorEndsCancelledWithoutRunning() throws {
        let log = OutcomeLog()
        let engine = makeEngine(log: log)
        defer { engine.shutdown() }
        try queueASuccessor(on: engine)
        engine.close(job: "j")
        XCTAssertEqual(log.kinds(attempt: 2), ["cancelled"], "the closed job's successor ended at once")

        XCTAssertTrue(eventually(timeout: 10) { log.kinds(attempt: 1).count == 1 }, "\(log.all)")
        XCTAssertTrue(eventually(timeout: 10) { engine.allDelivered(job: "j") }, "the engine still holds the job")
        XCTAssertEqual(log.kinds(attempt: 1), ["cancelled"])
        XCTAssertEqual(log.kinds(attempt: 2), ["cancelled"])
        XCTAssertEqual(log.stages(attempt: 2), [])
        XCTAssertEqual(source.requests, [], "nothing was downloaded")
        XCTAssertEqual(engine.inFlightCount, 0)
    }

    // MARK: - Shutdown

    /// The node's loop may still suspend a job while `shutdown` waits for the job's queues; a
    /// suspended queue never runs its (cancelled) operations, so the suspend must not happen.
    func testShutdownEndsWhenASuspendArrivesWhileItWaits() throws {
        let hold = HoldFilter()
        var filters = FilterRegistry.builtIn
        try filters.register(hold)
        let log = OutcomeLog()
        let engine = makeEngine(filters: filters, log: log)
        engine.submit(try graph(attempt: 1, filters: ["hold"]))
        XCTAssertEqual(hold.entered.wait(timeout: .now() + 30), .success, "the photo reached its filter")

        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            engine.shutdown()
            returned.signal()
        }
        XCTAssertTrue(eventually(timeout: 10) { engine.inFlightKeys.isEmpty }, "shutdown cancelled the photo")
        XCTAssertTrue(eventually(timeout: 10) { engine.shutdownIsWaitingForQueues }, "shutdown waits for the job's queues")
        engine.setSuspended(job: "j", true)
        hold.open.withLock { $0 = true }

        let ended = returned.wait(timeout: .now() + 5) == .success
        XCTAssertTrue(ended, "shutdown returned")
        if !ended {
            engine.setSuspended(job: "j", false)  // let the hung shutdown end before the next test
            _ = returned.wait(timeout: .now() + 30)
        }
        XCTAssertEqual(log.kinds(attempt: 1), ["cancelled"])
    }

    // MARK: - A job's queues

    /// Two last photos of a job whose completions run at the same moment (each waits in its
    /// outcome for the other): one of them must release the job's queues.
    func testTwoLastPhotosEndingTogetherReleaseTheJobsQueues() throws {
        let log = OutcomeLog()
        // Per job, the outcomes so far and, once both have come, when both may leave.
        let arrived = LockedBox<[String: (count: Int, leave: Date?)]>([:])
        let engine = makeEngine(concurrency: 2, log: log) { work, _ in
            let job = work.graph.jobID
            var leave = arrived.withLock { table -> Date? in
                let count = (table[job]?.count ?? 0) + 1
                table[job] = (count, count == 2 ? Date().addingTimeInterval(0.005) : nil)
                return table[job]?.leave
            }
            // Both spin (a sleeper would wake late) until the same moment, then leave together.
            let deadline = Date().addingTimeInterval(5)
            while leave == nil && Date() < deadline { leave = arrived.withLock { $0[job]?.leave } }
            while Date() < leave ?? deadline {}
        }
        defer { engine.shutdown() }
        var leaked: [String] = []
        for round in 0..<100 {
            let job = "pair-\(round)"
            engine.submit(try graph(job: job, photo: 0, attempt: 1, filters: []))
            engine.submit(try graph(job: job, photo: 1, attempt: 1, filters: []))
            XCTAssertTrue(eventually(timeout: 10) { log.count(job: job) == 2 }, "both photos of \(job) ended")
            // The release runs on the engine's queue thread, which a loaded host may be slow to schedule.
            if !eventually(timeout: 10, { engine.jobQueues(job) == nil }) { leaked.append(job) }
        }
        XCTAssertEqual(leaked, [], "jobs whose queues stayed after their last photo")
        XCTAssertTrue(log.all.allSatisfy { $0.kind == "encoded" }, "\(log.all)")
    }

    /// Each photo's outcome submits the job's next photo from another thread, racing the
    /// release of the job's queues, while the job is suspended and resumed over and over. Every
    /// photo ends once, each in the queues the job table holds, and the job leaves no queues.
    func testPhotosSubmittedAsTheJobsLastOneEndsRunInTheJobsQueues() throws {
        let rounds: UInt32 = 300
        let log = OutcomeLog()
        let holder = EngineHolder()
        let outside = LockedBox<[UInt32]>([])
        let url = MemoryPhotoSource.url(of: "clock.jpg")
        let engine = makeEngine(concurrency: 2, log: log) { work, _ in
            let current = holder.engine!
            // The outcome comes from the graph's last operation: it runs in the job's queue.
            if OperationQueue.current !== current.jobQueues(work.graph.jobID)?.processing {
                outside.withLock { $0.append(work.graph.photoIndex) }
            }
            let next = work.graph.photoIndex + 1
            guard next < rounds else { return }
            var graph = work.graph
            graph.photoIndex = next
            graph.url = url
            DispatchQueue.global().async { [graph] in current.submit(graph) }
        }
        holder.engine = engine
        defer { engine.shutdown() }

        let stop = LockedBox(false)
        let toggled = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !stop.current {
                engine.setSuspended(job: "chain", true)
                usleep(UInt32.random(in: 0...300))
                engine.setSuspended(job: "chain", false)
                usleep(UInt32.random(in: 0...1_000))
            }
            toggled.signal()
        }
        engine.submit(try graph(job: "chain", photo: 0, attempt: 1, filters: []))
        let allEnded = eventually(timeout: 120) { log.count(job: "chain") >= Int(rounds) }
        stop.withLock { $0 = true }
        XCTAssertEqual(toggled.wait(timeout: .now() + 10), .success)
        engine.setSuspended(job: "chain", false)
        XCTAssertTrue(allEnded, "every photo ended: \(log.count(job: "chain")) of \(rounds)")
        XCTAssertTrue(eventually(timeout: 10) { engine.allDelivered(job: "chain") }, "the finished job left its queues")
        let ends = Dictionary(grouping: log.all, by: \.photo)
        for photo in 0..<rounds {
            XCTAssertEqual(ends[photo]?.map(\.kind), ["encoded"], "photo \(photo)")
        }
        XCTAssertEqual(outside.current, [], "photos whose operations ran in queues the job table no longer held")
        XCTAssertEqual(engine.inFlightCount, 0)
    }

    // MARK: - The hello's credit

    /// A cancelled graph winding down and the graph queued behind it each still return a
    /// credit, so a hello's grant leaves room for both.
    func testAHellosGrantCountsAQueuedSuccessor() throws {
        let coordinator = try ScriptedCoordinator(engine: .init(concurrency: 1))
        defer { coordinator.stop() }
        XCTAssertTrue(coordinator.receivedHello(), "the worker said hello")
        let window = coordinator.worker.configuration.window
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = "j"
        graph.photoIndex = 0
        graph.url = "\(coordinator.server.baseURL)/clock.jpg"
        graph.epoch = 1
        graph.attempt = 1
        try coordinator.send(.suspend(.with { $0.jobID = "j"; $0.epoch = 1 }))
        try coordinator.send(.assign(.with { $0.graph = graph }))
        try coordinator.send(.cancel(.with { $0.jobID = "j"; $0.epoch = 1; $0.photoIndices = [0] }))
        graph.attempt = 2
        try coordinator.send(.assign(.with { $0.graph = graph }))
        try coordinator.send(.pleaseRegister(Photocluster_V1_PleaseRegister()))

        // The loop handles messages in order: the hello comes after both assignments.
        var sawHello = false
        var grant: UInt32?
        let deadline = Date().addingTimeInterval(10)
        while grant == nil && Date() < deadline {
            guard let frames = try? coordinator.router.receive(dontWait: true) else { usleep(2_000); continue }
            guard let message = Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frames[1]) else { continue }
            switch message.body {
            case .hello: sawHello = true
            case .credit(let credit) where sawHello: grant = credit.grant
            default: break
            }
        }
        XCTAssertEqual(grant, UInt32(window - 2), "attempt 1 and the successor behind it each hold a credit")
    }
}

/// Every outcome an engine reported, in order, repeats included.
final class OutcomeLog: @unchecked Sendable {
    struct End: Sendable {
        let job: String
        let photo: UInt32
        let attempt: UInt32
        let kind: String
    }

    private let ends = LockedBox<[End]>([])
    let stages = LockedBox<[(attempt: UInt32, stage: Photocluster_V1_Stage)]>([])

    func record(_ work: PhotoWork, _ outcome: PhotoWork.Outcome) {
        let kind: String
        switch outcome {
        case .encoded: kind = "encoded"
        case .cancelled: kind = "cancelled"
        case .failed(_, let stage, let reason, _): kind = "failed \(stage): \(reason)"
        }
        let end = End(job: work.graph.jobID, photo: work.graph.photoIndex, attempt: work.graph.attempt, kind: kind)
        ends.withLock { $0.append(end) }
    }

    var all: [End] { ends.current }

    func kinds(attempt: UInt32) -> [String] { all.filter { $0.attempt == attempt }.map(\.kind) }

    func count(job: String) -> Int { ends.withLock { $0.filter { $0.job == job }.count } }

    func stages(attempt: UInt32) -> [Photocluster_V1_Stage] { stages.current.filter { $0.attempt == attempt }.map(\.stage) }
}

/// The engine, for its own outcome handler (set once, before the first graph).
private final class EngineHolder: @unchecked Sendable {
    var engine: WorkerEngine?
}

/// A filter that holds its photo until the test opens it, cancelled or not, like a stage that
/// cannot be interrupted.
final class HoldFilter: FilterStage, @unchecked Sendable {
    let descriptor = FilterDescriptor(name: "hold", version: "1", summary: "held until the test opens it", parameters: [])
    let entered = DispatchSemaphore(value: 0)
    let open = LockedBox(false)

    func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        entered.signal()
        while !open.current { Thread.sleep(forTimeInterval: 0.002) }
        return image
    }
}
