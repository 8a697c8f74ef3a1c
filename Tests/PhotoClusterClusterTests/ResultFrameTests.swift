import Foundation
import PhotoClusterClient
import PhotoClusterCoordinator
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

/// A result's encoded photo travels as a frame of its own after the envelope, never inside the
/// protobuf message; a coordinator still takes it from inside when no frame follows.
final class ResultFrameTests: XCTestCase {
    func testAWorkerSendsTheEncodedPhotoAsAFrameOfItsOwn() throws {
        let coordinator = try ScriptedCoordinator()
        defer { coordinator.stop() }
        XCTAssertTrue(coordinator.receivedHello(), "the worker said hello")
        try coordinator.send(.assign(.with { assign in
            assign.graph.jobID = "j"
            assign.graph.photoIndex = 0
            assign.graph.name = "coffee"
            assign.graph.url = "\(coordinator.server.baseURL)/coffee.jpg"
            assign.graph.attempt = 1
            assign.graph.format = .png
            assign.graph.filters = [.with { $0.name = "sepia" }]
        }))

        var resultFrames: [Data]?
        var result: Photocluster_V1_PhotoResult?
        let deadline = Date().addingTimeInterval(30)
        while resultFrames == nil && Date() < deadline {
            guard let frames = try coordinator.router.receive(dontWait: true) else { usleep(2_000); continue }
            let message = try XCTUnwrap(Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frames[1]))
            guard case .reports(let batch) = message.body else { continue }
            for report in batch.reports {
                if case .failure(let failure) = report.body { return XCTFail("the photo failed: \(failure.reason)") }
                if case .result(let reported) = report.body { (resultFrames, result) = (frames, reported) }
            }
        }
        let frames = try XCTUnwrap(resultFrames, "no result within 30 s")
        let reported = try XCTUnwrap(result)
        XCTAssertEqual(frames.count, 3, "identity, envelope, photo")
        XCTAssertTrue(reported.photoInFrame, "the result does not name its frame")
        XCTAssertTrue(reported.encoded.isEmpty, "the photo was also copied into the envelope (\(reported.encoded.count) bytes)")
        guard frames.count == 3 else { return }
        let decoded = try ImageCodec.decode(frames[2])
        XCTAssertEqual(decoded.format, .png)
        XCTAssertEqual([decoded.image.width, decoded.image.height], [Int(reported.width), Int(reported.height)])
    }

    func testACoordinatorTakesThePhotoFromInsideTheEnvelopeWhenNoFrameFollows() async throws {
        let photo = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
        let (status, written) = try await runOnePhoto(answeringWith: photo)
        XCTAssertEqual(status.state, .done, status.reason)
        XCTAssertEqual(written, photo, "the file holds the bytes the result carried")
    }

    func testAResultWithoutAPhotoFailsItsAttemptInsteadOfWritingAnEmptyFile() async throws {
        let (status, written) = try await runOnePhoto(answeringWith: Data())
        XCTAssertEqual(status.state, .failed)
        XCTAssertEqual(status.stage, "result")
        XCTAssertTrue(status.reason.contains("without the encoded photo"), status.reason)
        XCTAssertEqual(status.attempts, 3, "an empty result is retried like any transient failure")
        XCTAssertNil(written, "a file was written for a result without a photo")
    }

    /// One photo through a real coordinator whose only worker is a bare DEALER that answers
    /// every assignment with a result carrying `encoded` inside, and no frame after it. Returns
    /// the photo's status and the output file, if one was written.
    private func runOnePhoto(answeringWith encoded: Data) async throws -> (Photocluster_V1_PhotoStatus, written: Data?) {
        let cluster = try ScriptedWorkerCluster(name: "in-band", retryBackoff: 0.01)
        defer { cluster.stop() }
        let (client, out) = (cluster.client, cluster.out)
        let worker = try cluster.connect("in-band")
        try worker.grant(1)

        let job = try await client.submit(try ClusterHarness.submit([("photo", "http://127.0.0.1:9/photo.jpg")], out: out, format: .jpeg))
        // The worker's socket is used by this task alone until the job is over.
        let answering = Task.detached {
            while !Task.isCancelled {
                guard let graph = worker.nextAssignment(timeout: 0.01) else { continue }
                try? worker.sendResult(of: graph, encoded: encoded)
                try? worker.grant(1)
            }
        }
        var summary: JobSummary?
        for await event in job.events { if case .finished(let finished) = event.body { summary = finished } }
        answering.cancel()
        _ = await answering.value
        let status = try XCTUnwrap(summary?.photo(named: "photo"), "the job ended without a summary")
        return (status, try? Data(contentsOf: out.appendingPathComponent("photo.jpg")))
    }
}
