import Foundation
import PhotoClusterClient
import PhotoClusterCoordinator
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

/// Graphs go to a worker in batches (credit for N, one message with up to N graphs), and a
/// worker's batch of reports is handled report by report, each result taking its own frame.
final class BatchedDispatchTests: XCTestCase {
    private var cluster: ScriptedWorkerCluster!

    override func setUpWithError() throws {
        cluster = try ScriptedWorkerCluster(name: "batched-dispatch", retryBackoff: 0.01)
    }

    override func tearDown() {
        cluster?.stop()
    }

    private func photos(_ count: Int) -> [(name: String, url: String)] {
        (0..<count).map { ("p\($0)", "http://127.0.0.1:9/p\($0).jpg") }
    }

    func testCreditForSeveralGraphsBringsThemInOneMessage() async throws {
        let worker = try cluster.connect("batch")
        XCTAssertTrue(eventually { self.cluster.coordinator.workerSnapshot().count == 1 })
        _ = try await cluster.client.submit(try ClusterHarness.submit(photos(5), out: cluster.out))
        try worker.grant(3)
        let graphs = try XCTUnwrap(worker.nextBatch(), "nothing was assigned")
        XCTAssertEqual(graphs.count, 3, "three credits granted at once bring three graphs in one message")
        XCTAssertEqual(Set(graphs.map(\.photoIndex)).count, 3, "three different photos")
        try worker.grant(2)
        XCTAssertEqual(worker.nextBatch()?.count, 2, "the rest of the job in the next message")
    }

    func testABatchOfReportsIsHandledReportByReportEachResultWithItsOwnFrame() async throws {
        let worker = try cluster.connect("batch")
        XCTAssertTrue(eventually { self.cluster.coordinator.workerSnapshot().count == 1 })
        let job = try await cluster.client.submit(try ClusterHarness.submit(photos(3), out: cluster.out, format: .jpeg))
        try worker.grant(3)
        let graphs = try XCTUnwrap(worker.nextBatch()).sorted { $0.photoIndex < $1.photoIndex }
        XCTAssertEqual(graphs.count, 3)
        let coffee = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        try worker.sendReports([
            .progress(.with { $0.jobID = graphs[0].jobID; $0.photoIndex = 0; $0.stage = .download; $0.bytes = 1 }),
            result(of: graphs[2]),
            .failure(.with {
                $0.jobID = graphs[1].jobID
                $0.photoIndex = 1
                $0.attempt = graphs[1].attempt
                $0.stage = .download
                $0.stageName = "download"
                $0.reason = "HTTP 404"
            }),
            result(of: graphs[0]),
        ], credit: 3, photos: [clock, coffee])

        var summary: JobSummary?
        for await event in job.events { if case .finished(let finished) = event.body { summary = finished } }
        let photos = try XCTUnwrap(summary, "the job finished").photos
        XCTAssertEqual(photos.map(\.state), [.done, .failed, .done])
        XCTAssertEqual(photos[1].reason, "HTTP 404")
        XCTAssertEqual(try Data(contentsOf: cluster.out.appendingPathComponent("p2.jpg")), clock, "the batch's first result took the first frame")
        XCTAssertEqual(try Data(contentsOf: cluster.out.appendingPathComponent("p0.jpg")), coffee, "the second result took the second frame")
        XCTAssertEqual(cluster.coordinator.workerSnapshot().map(\.cached), [0], "the progress was recorded, then forgotten when the photo settled")
    }

    func testAResultWhoseFrameIsMissingFailsItsAttemptAlone() async throws {
        let worker = try cluster.connect("batch")
        XCTAssertTrue(eventually { self.cluster.coordinator.workerSnapshot().count == 1 })
        let job = try await cluster.client.submit(try ClusterHarness.submit(photos(2), out: cluster.out, format: .jpeg))
        try worker.grant(2)
        let graphs = try XCTUnwrap(worker.nextBatch()).sorted { $0.photoIndex < $1.photoIndex }
        let coffee = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
        // Two results name a frame, one frame follows: the second result has no photo.
        try worker.sendReports([result(of: graphs[0]), result(of: graphs[1])], credit: 2, photos: [coffee])
        let retried = try XCTUnwrap(worker.nextAssignment(), "the photo without a frame is sent again")
        XCTAssertEqual([retried.photoIndex, retried.attempt], [1, 2])
        try worker.sendReports([result(of: retried)], credit: 1, photos: [coffee])

        var summary: JobSummary?
        for await event in job.events { if case .finished(let finished) = event.body { summary = finished } }
        let photos = try XCTUnwrap(summary, "the job finished").photos
        XCTAssertEqual(photos.map(\.state), [.done, .done])
        XCTAssertEqual(photos.map(\.attempts), [1, 2])
    }

    func testAWorkerRunsEveryGraphOfABatchAndGivesBackEachCredit() throws {
        let coordinator = try ScriptedCoordinator()
        defer { coordinator.stop() }
        XCTAssertTrue(coordinator.receivedHello(), "the worker said hello")
        let names = ["coffee", "clock", "coins"]
        try coordinator.send(.assignBatch(.with { batch in
            batch.graphs = names.enumerated().map { index, name in
                .with {
                    $0.jobID = "j"
                    $0.photoIndex = UInt32(index)
                    $0.name = name
                    $0.url = "\(coordinator.server.baseURL)/\(name).jpg"
                    $0.attempt = 1
                    $0.filters = [.with { $0.name = "sepia" }]
                }
            }
        }))
        var results: Set<UInt32> = []
        var credit: UInt32 = 0
        let deadline = Date().addingTimeInterval(30)
        while (results.count < 3 || credit < 3) && Date() < deadline {
            guard let frames = try coordinator.router.receive(dontWait: true) else { usleep(2_000); continue }
            // The hello's own grant is a message of its own; outcomes give credit back in batches.
            guard case .reports(let batch)? = Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frames[1])?.body else { continue }
            credit += batch.credit
            for case .result(let result)? in batch.reports.map(\.body) { results.insert(result.photoIndex) }
            for case .failure(let failure)? in batch.reports.map(\.body) { XCTFail("photo \(failure.photoIndex) failed: \(failure.reason)") }
        }
        XCTAssertEqual(results, [0, 1, 2], "every graph of the batch ran")
        XCTAssertEqual(credit, 3, "each photo that ended gave its credit back")
    }

    private func result(of graph: Photocluster_V1_PhotoGraph) -> Photocluster_V1_WorkerReport.OneOf_Body {
        .result(.with {
            $0.jobID = graph.jobID
            $0.photoIndex = graph.photoIndex
            $0.attempt = graph.attempt
            $0.format = .jpeg
            $0.width = 1
            $0.height = 1
            $0.photoInFrame = true
        })
    }
}
