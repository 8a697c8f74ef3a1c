import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterWorker

/// On a busy worker the control path comes first: a control message read in the same turn as
/// graphs is applied and acknowledged before they are looked at, and the threads that decode,
/// filter and encode run behind the loop and download threads.
final class ControlPrecedenceTests: XCTestCase {
    private typealias Body = Photocluster_V1_WorkerToCoordinator.OneOf_Body
    private var coordinator: ScriptedCoordinator!
    private let probe = NiceProbeFilter()

    override func setUpWithError() throws {
        var filters = FilterRegistry.builtIn
        try filters.register(probe)
        // Over inproc, so that what the test sends is in the worker's socket once sent (see `holdLoop`).
        coordinator = try ScriptedCoordinator(filters: filters, endpoint: "inproc://control-precedence-\(UUID().uuidString)")
        XCTAssertTrue(coordinator.receivedHello(), "the worker said hello")
    }

    override func tearDown() {
        coordinator?.stop()
    }

    func testControlReadWithGraphsIsAppliedAndAcknowledgedBeforeThem() throws {
        // Eight graphs and then a suspension, read in one turn as a loop busy with other work would.
        try holdLoop {
            for index in UInt32(0)..<8 { try coordinator.send(.assign(.with { $0.graph = graph(index, epoch: 1) })) }
            try coordinator.send(.suspend(.with { $0.jobID = "j"; $0.epoch = 2 }))
        }

        let replies = receive(for: 10) { $0.filter(\.isCancelled).count == 8 }
        XCTAssertEqual(replies.first.flatMap(\.ackedEpoch), 2, "the suspension was acknowledged first: \(replies)")
        XCTAssertEqual(replies.compactMap(\.cancelledPhoto).sorted(), Array(UInt32(0)..<8), "graphs older than the suspension were handed back")
        XCTAssertEqual(coordinator.server.requestCount, 0, "none of them started a download")
    }

    func testACancelOfAGraphReadEarlierInTheSameTurnAtItsEpochActsAsInOrder() throws {
        // Attempt 1, its cancel and attempt 2 of one photo, all at epoch 1, read in one turn:
        // in order, attempt 1 starts and is cancelled and attempt 2 runs after it.
        try holdLoop {
            var graph = graph(0, epoch: 1)
            try coordinator.send(.assign(.with { $0.graph = graph }))
            try coordinator.send(.cancel(.with { $0.jobID = "j"; $0.epoch = 1; $0.photoIndices = [0] }))
            graph.attempt = 2
            try coordinator.send(.assign(.with { $0.graph = graph }))
        }
        let replies = receive(for: 30) { bodies in bodies.contains { if case .result = $0 { return true } else { return false } } }
        XCTAssertTrue(replies.contains { if case .cancelled(let c) = $0 { return c.attempt == 1 } else { return false } }, "attempt 1 was cancelled: \(replies)")
        XCTAssertTrue(replies.contains { if case .result(let r) = $0 { return r.attempt == 2 } else { return false } }, "attempt 2 ran after it: \(replies)")
    }

    func testStageThreadsGiveWayWhileTheLoopAndDownloadThreadsDoNot() throws {
        try coordinator.send(.assign(.with { $0.graph = graph(0, epoch: 1, filters: [probe.descriptor.name]) }))
        let replies = receive(for: 30) { $0.contains { if case .result = $0 { return true } else { return false } } }
        XCTAssertTrue(replies.contains { if case .result = $0 { return true } else { return false } }, "the photo was filtered: \(replies)")
        XCTAssertEqual(probe.niceValues.current, [19], "the filter ran at the stage priority, nice 19")
        let threads = ThreadTable.ofThisProcess()
        let loop = try XCTUnwrap(threads.first { $0.name == "worker \(ScriptedCoordinator.workerID)" }, "\(threads)")
        XCTAssertEqual(loop.nice, 0, "the worker's loop keeps normal priority")
        let download = try XCTUnwrap(threads.first { $0.name == "pc-download" }, "\(threads)")
        XCTAssertEqual(download.nice, 0, "the download thread keeps normal priority")
    }

    /// Holds the worker's loop while `send` sends, then lets it go: it reads all of it in one turn.
    /// Over inproc a message is in the worker's socket when the router's send returns (over TCP it
    /// would still be on its way through the I/O threads, for no time anyone could promise).
    private func holdLoop(while send: () throws -> Void) throws {
        let gate = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        coordinator.worker.loop.post {
            held.signal()
            gate.wait()
        }
        defer { gate.signal() }
        XCTAssertEqual(held.wait(timeout: .now() + 10), .success, "the loop is held")
        try send()
    }

    private func graph(_ index: UInt32, epoch: UInt64, filters: [String] = ["sepia"]) -> Photocluster_V1_PhotoGraph {
        .with {
            $0.jobID = "j"
            $0.photoIndex = index
            $0.name = "clock-\(index)"
            $0.url = "\(coordinator.server.baseURL)/clock.jpg"
            $0.filters = filters.map { name in .with { $0.name = name } }
            $0.epoch = epoch
            $0.attempt = 1
        }
    }

    /// Messages from the worker for up to `seconds`, skipping credits and heartbeats.
    private func receive(for seconds: TimeInterval, until done: ([Body]) -> Bool) -> [Body] {
        var bodies: [Body] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && !done(bodies) {
            guard let frames = try? coordinator.router.receive(dontWait: true) else { usleep(2_000); continue }
            for body in WorkerMessages.bodies(frames) {
                switch body {
                case .credit, .heartbeat, .hello, .progress: continue
                default: bodies.append(body)
                }
            }
        }
        return bodies
    }
}

extension Photocluster_V1_WorkerToCoordinator.OneOf_Body {
    fileprivate var ackedEpoch: UInt64? {
        if case .ack(let ack) = self { return ack.epoch }
        return nil
    }

    fileprivate var cancelledPhoto: UInt32? {
        if case .cancelled(let cancelled) = self { return cancelled.photoIndex }
        return nil
    }

    fileprivate var isCancelled: Bool { cancelledPhoto != nil }
}

/// A filter that records the nice value of each thread it runs on and leaves the pixels alone.
final class NiceProbeFilter: FilterStage, @unchecked Sendable {
    let descriptor = FilterDescriptor(name: "nice-probe", version: "1", summary: "records its thread's nice value", parameters: [])
    let niceValues = LockedBox<[Int32]>([])

    func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        niceValues.withLock { $0.append(nice) }
        return image
    }
}

/// This process's threads as `/proc` shows them: name and nice value.
enum ThreadTable {
    struct Entry: CustomStringConvertible {
        let name: String
        let nice: Int
        var description: String { "\(name) (nice \(nice))" }
    }

    static func ofThisProcess() -> [Entry] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            guard let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After the name: state is field 3 and nice field 19 of stat(5).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 16, let nice = Int(fields[16]) else { return nil }
            return Entry(name: name.trimmingCharacters(in: .newlines), nice: nice)
        }
    }
}
