import Foundation
import PhotoClusterClient
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

/// Result provenance against a `cluster coordinator` process with CURVE keys: a worker's report
/// about a photo counts only when that attempt of that photo was sent to that worker. The lying
/// worker is a `ScriptedWorker` with a worker key of its own.
final class ProvenanceTests: XCTestCase {
    func testAReportAboutAPhotoIsTakenOnlyFromTheWorkerItsAttemptWasSentTo() async throws {
        let coordinator = try CurveCoordinatorProcess(name: "provenance", peers: [("honest", "worker"), ("liar", "worker"), ("client", "client")])
        defer { coordinator.stop() }
        let (workerEndpoint, clientEndpoint, metrics) = (coordinator.workerEndpoint, coordinator.clientEndpoint, coordinator.metrics)
        let logText = { coordinator.logText }
        let curve = coordinator.curve
        let context = try ZMQContext()
        defer { context.terminate() }
        let honest = try ScriptedWorker(id: "honest", context: context, endpoint: workerEndpoint, curve: curve("honest"))
        let liar = try ScriptedWorker(id: "liar", context: context, endpoint: workerEndpoint, curve: curve("liar"))
        defer { honest.close(); liar.close() }
        XCTAssertTrue(eventually(timeout: 10) { logText().contains("worker honest joined") && logText().contains("worker liar joined") }, logText())

        let client = try ClusterClient(endpoint: clientEndpoint, context: context, curve: curve("client"))
        defer { client.close() }
        let job = try await client.submit(.with { submit in
            submit.outputDir = "out"
            submit.filters = [.with { $0.name = "sepia" }]
            submit.photos = (0..<6).map { index in .with { $0.name = "p\(index)"; $0.url = "http://127.0.0.1:9/p\(index).jpg" } }
        })
        try honest.grant(4)
        let honestGraphs = (0..<4).compactMap { _ in honest.nextAssignment(timeout: 10) }
        XCTAssertEqual(honestGraphs.count, 4)
        try liar.grant(1)
        let liarsGraph = try XCTUnwrap(liar.nextAssignment(timeout: 10))
        let theirs = try XCTUnwrap(honestGraphs.first)
        let out = coordinator.root.appendingPathComponent("out")
        func file(_ graph: Photocluster_V1_PhotoGraph) -> URL { out.appendingPathComponent("\(graph.name).jpg") }

        // The liar, which was sent photo `liarsGraph`, reports on the honest worker's photo:
        // a result, a failure and progress, and a result for a photo that does not exist.
        try liar.sendResult(of: theirs, encoded: Data("forged".utf8))
        try liar.send(.failure(.with {
            $0.jobID = job.id; $0.photoIndex = theirs.photoIndex; $0.attempt = theirs.attempt
            $0.stage = .download; $0.stageName = "download"; $0.reason = "made up"; $0.transient = false
        }))
        try liar.reportStage(.download, of: theirs)
        // Stage timings for the task stream are believed on the same terms.
        func spans(of graph: Photocluster_V1_PhotoGraph, by worker: String) -> Photocluster_V1_WorkerReport.OneOf_Body {
            .spans(.with { report in
                report.jobID = graph.jobID; report.photoIndex = graph.photoIndex; report.attempt = graph.attempt
                report.spans = [.with { $0.stage = .decode; $0.name = "decode by \(worker)"; $0.startUnixUs = 1_000_000; $0.durationUs = 1_234 }]
            })
        }
        try liar.sendReports([spans(of: theirs, by: "liar")], credit: 0)
        try liar.sendReports([spans(of: liarsGraph, by: "liar")], credit: 0)
        var unknown = liarsGraph
        unknown.photoIndex = 99
        try liar.sendResult(of: unknown, encoded: Data("forged".utf8))
        // Its own photo is its to report.
        try liar.sendResult(of: liarsGraph, encoded: Data("liar's own".utf8))

        let rejected = { (reason: String) -> Double? in
            guard let text = try? PlainHTTPClient.send("GET", metrics).body else { return nil }
            return sample(#"photocluster_rejected_results_total{reason="\#(reason)"}"#, in: String(decoding: text, as: UTF8.self))
        }
        XCTAssertTrue(eventually(timeout: 10) { rejected("not_sent") == 4 && rejected("unknown_photo") == 1 },
                      "not_sent \(String(describing: rejected("not_sent"))), unknown_photo \(String(describing: rejected("unknown_photo")))")
        XCTAssertTrue(eventually(timeout: 10) { (try? Data(contentsOf: file(liarsGraph))) == Data("liar's own".utf8) })
        XCTAssertFalse(FileManager.default.fileExists(atPath: file(theirs).path), "the forged result was not written")
        XCTAssertTrue(logText().contains("rejected a result from worker liar for photo \(theirs.photoIndex) of job \(job.id): attempt 1 of it was not sent to that worker"),
                      logText())
        let status = try await client.status(job: job.id)
        let photo = try XCTUnwrap(status.jobs.first?.photos.first { $0.index == theirs.photoIndex })
        XCTAssertEqual(photo.state, .new, "the made-up failure settled nothing")
        XCTAssertEqual(photo.workerID, "honest")

        // The worker it was sent to delivers it.
        try honest.sendReports([spans(of: theirs, by: "honest")], credit: 0)
        try honest.sendResult(of: theirs, encoded: Data("honest".utf8))
        XCTAssertTrue(eventually(timeout: 10) { (try? Data(contentsOf: file(theirs))) == Data("honest".utf8) })
        XCTAssertEqual(rejected("not_sent"), 4)
        let trace = try await client.trace(job: job.id)
        XCTAssertEqual(
            Set(trace.spans.filter { $0.workerID != "coordinator" }.map { "\($0.workerID) \($0.photoIndex) \($0.span.name)" }),
            ["liar \(liarsGraph.photoIndex) decode by liar", "honest \(theirs.photoIndex) decode by honest"],
            "the task stream holds only what each worker was sent")

        // An earlier attempt's result still counts, from the worker that got that attempt: the
        // honest worker comes back without one of its photos, which goes to the other worker as
        // attempt 2, and then delivers its attempt 1.
        let earlier = honestGraphs[1]
        try honest.hello(inFlight: honestGraphs.dropFirst(2).map { ($0.jobID, $0.photoIndex) })
        try liar.grant(1)
        let again = try XCTUnwrap(liar.nextAssignment(timeout: 10))
        XCTAssertEqual([again.photoIndex, again.attempt], [earlier.photoIndex, earlier.attempt + 1])
        try honest.sendResult(of: earlier, encoded: Data("earlier attempt".utf8))
        XCTAssertTrue(eventually(timeout: 10) { (try? Data(contentsOf: file(earlier))) == Data("earlier attempt".utf8) })
        XCTAssertEqual(rejected("not_sent"), 4)
    }
}

/// Value of one series in a Prometheus exposition, e.g. `photocluster_photos_total{outcome="failed"}`.
private func sample(_ series: String, in exposition: String) -> Double? {
    for line in exposition.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}
