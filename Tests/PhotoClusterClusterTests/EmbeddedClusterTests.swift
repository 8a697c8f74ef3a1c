import Foundation
import LoopbackHTTP
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterEmbedded
import PhotoClusterImaging
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

final class EmbeddedClusterTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var cluster: EmbeddedCluster!
    private var client: ClusterClient!
    private var out: URL!

    override func setUpWithError() throws {
        let photos = Repository.samplePhotos
        server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/not-an-image.jpg":
                return HTTPResponse(body: Data("<html>nothing here</html>".utf8))
            case "/truncated.jpg":
                let bytes = try! Data(contentsOf: photos.appendingPathComponent("astronaut.jpg"))
                return HTTPResponse(body: bytes.prefix(bytes.count / 2))
            case "/flaky":
                return HTTPResponse(status: 503)
            case "/slow.jpg":
                let bytes = try! Data(contentsOf: photos.appendingPathComponent("clock.jpg"))
                return HTTPResponse(body: bytes, trickle: (chunk: 1_000, interval: 0.05))
            default:
                let file = photos.appendingPathComponent(String(request.path.dropFirst()))
                guard let bytes = try? Data(contentsOf: file) else { return .notFound() }
                return HTTPResponse(body: bytes)
            }
        }
        cluster = try EmbeddedCluster(workers: 2, totalConcurrency: 2)
        try cluster.start()
        client = try ClusterClient(endpoint: cluster.clientEndpoint, context: cluster.context)
        out = Repository.temporaryDirectory("embedded")
    }

    override func tearDown() {
        client?.close()
        cluster?.stop()
        server?.stop()
        if let out { try? FileManager.default.removeItem(at: out) }
    }

    func testRealPhotosAreFilteredAndBrokenOnesFailAlone() async throws {
        var photos = ClusterHarness.samples(on: server)
        photos.append(("missing", "\(server.baseURL)/kiten.jpg"))
        photos.append(("html", "\(server.baseURL)/not-an-image.jpg"))
        photos.append(("half", "\(server.baseURL)/truncated.jpg"))
        photos.append(("refused", "http://127.0.0.1:9/nothing.jpg"))
        let (_, summary, events) = try await ClusterHarness.run(try ClusterHarness.submit(photos, out: out), on: client)
        let result = try XCTUnwrap(summary)
        XCTAssertEqual(Int(result.progress.total), photos.count)
        XCTAssertEqual(Int(result.progress.succeeded), Repository.samplePhotoFiles.count)
        XCTAssertEqual(result.progress.failed, 4)
        XCTAssertEqual(result.phase, .didFinish)

        let missing = try XCTUnwrap(result.photo(named: "missing"))
        XCTAssertEqual(missing.stage, "download")
        XCTAssertTrue(missing.reason.hasPrefix("HTTP 404"), missing.reason)
        XCTAssertEqual(missing.attempts, 1, "a 404 is permanent: no retry")
        XCTAssertEqual(result.photo(named: "html")?.stage, "decode")
        XCTAssertEqual(result.photo(named: "half")?.stage, "decode")
        let refused = try XCTUnwrap(result.photo(named: "refused"))
        XCTAssertEqual(refused.stage, "download")
        XCTAssertEqual(refused.attempts, 3, "a refused connection is transient: retried up to the limit")
        XCTAssertTrue(refused.reason.contains("after 3 attempts"), refused.reason)

        // Every success has its complete file; failures left nothing, and no temporary file remains.
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != "index.json" && !$0.hasPrefix(".") }.sorted()
        XCTAssertEqual(files.count, Repository.samplePhotoFiles.count, "\(files)")
        XCTAssertFalse(files.contains { $0.hasPrefix(".") })
        for photo in result.photos where photo.state == .done {
            let data = try Data(contentsOf: URL(fileURLWithPath: photo.outputPath))
            let decoded = try ImageCodec.decode(data)
            XCTAssertEqual(decoded.image.width, Int(photo.width))
            XCTAssertEqual(decoded.image.height, Int(photo.height))
            XCTAssertEqual(decoded.format.fileExtension, URL(fileURLWithPath: photo.outputPath).pathExtension, "output keeps the input's format")
        }

        // Phases arrive in order, and progress counts up to the total.
        let phases = events.compactMap { event -> Photocluster_V1_JobPhase? in
            if case .phase(let phase) = event.body { return phase }
            return nil
        }
        XCTAssertEqual(phases, [.preparation, .inProgress, .willFinish, .didFinish])
        let done = events.compactMap { event -> UInt32? in
            if case .progress(let progress) = event.body { return progress.done }
            return nil
        }
        XCTAssertEqual(done, done.sorted())
        XCTAssertEqual(done.last, UInt32(photos.count))
    }

    func testTransientServerErrorsAreRetriedThenReported() async throws {
        let (_, summary, _) = try await ClusterHarness.run(
            try ClusterHarness.submit([("flaky", "\(server.baseURL)/flaky")], out: out), on: client)
        let photo = try XCTUnwrap(summary?.photo(named: "flaky"))
        XCTAssertEqual(photo.state, .failed)
        XCTAssertEqual(photo.attempts, 3)
        XCTAssertEqual(server.requests(forPath: "/flaky"), 3)
        XCTAssertEqual(summary?.retries, 2)
    }

    /// A coordinator killed while writing a result leaves a hidden temporary file; the one that
    /// finishes the job removes its job's leftovers, and only those.
    func testFinishingAJobRemovesItsLeftoverTemporaryFiles() async throws {
        let job = try await client.submit(try ClusterHarness.submit([("slow", "\(server.baseURL)/slow.jpg")], out: out))
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let leftover = out.appendingPathComponent(".gone.jpg.\(job.id)-1.tmp")
        let unrelated = out.appendingPathComponent(".other.jpg.job-elsewhere-1.tmp")
        for file in [leftover, unrelated] { try Data("cut short".utf8).write(to: file) }
        var summary: JobSummary?
        for await event in job.events { if case .finished(let finished) = event.body { summary = finished } }
        XCTAssertEqual(summary?.phase, .didFinish)
        XCTAssertEqual(summary?.photo(named: "slow")?.state, .done)
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path), "the job's leftover is gone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: unrelated.path), "another job's file is left alone")
    }

    func testPNGOutputIsExactSepia() async throws {
        let (_, summary, _) = try await ClusterHarness.run(
            try ClusterHarness.submit([("coffee", "\(server.baseURL)/coffee.jpg")], out: out, format: .png), on: client)
        let photo = try XCTUnwrap(summary?.photo(named: "coffee"))
        XCTAssertEqual(photo.state, .done)
        XCTAssertTrue(photo.outputPath.hasSuffix("/coffee.png"), photo.outputPath)
        let input = try ImageCodec.decode(try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))).image
        let output = try ImageCodec.decode(try Data(contentsOf: URL(fileURLWithPath: photo.outputPath))).image
        let difference = SepiaReference.difference(SepiaReference.apply(input), output)
        XCTAssertLessThanOrEqual(difference.max, 1, "PNG is lossless: only float rounding may differ")
    }

    /// `--fast-dct` reaches the worker: the same photo comes out as another, close, JPEG, and the
    /// accurate and fast decodes are cached apart (the second job would otherwise resume from the
    /// first one's pixels).
    func testFastDCTJobsDecodeAndEncodeWithTheFastDCT() async throws {
        let url = "\(server.baseURL)/coffee.jpg"
        var outputs: [Data] = []
        for fast in [false, true] {
            var submit = try ClusterHarness.submit([("coffee", url)], out: out.appendingPathComponent(fast ? "fast" : "accurate"))
            submit.quality = 85
            submit.fastDct = fast
            let (_, summary, _) = try await ClusterHarness.run(submit, on: client)
            let photo = try XCTUnwrap(summary?.photo(named: "coffee"))
            XCTAssertEqual(photo.state, .done)
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: photo.outputPath)))
        }
        XCTAssertNotEqual(outputs[0], outputs[1], "the fast DCT gives another file")
        let accurate = try ImageCodec.decode(outputs[0]).image, fast = try ImageCodec.decode(outputs[1]).image
        XCTAssertLessThan(SepiaReference.difference(accurate, fast).mean, 3, "and nearly the same picture")
        // Exactly the file of a fast decode, sepia and a fast encode: not resumed from the first
        // job's accurately decoded pixels.
        let source = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
        let sepia = SepiaFilter().pixelTransform(parameters: FilterParameters(["intensity": 0.8]))
        let expected = try ImageCodec.encode(try ImageCodec.decode(source, fastDCT: true).image, as: .jpeg, quality: 85, fastDCT: true, transform: sepia)
        XCTAssertEqual(outputs[1], expected)
    }

    func testAJobWithAFilterNoWorkerHasIsRefusedListingWhatExists() async throws {
        var submit = try ClusterHarness.submit([("astronaut", "\(server.baseURL)/astronaut.jpg")], out: out)
        submit.filters = [.with { $0.name = "oilpaint" }]
        XCTAssertTrue(eventually { self.cluster.coordinator.workerSnapshot().count == 2 })
        do {
            _ = try await client.submit(submit)
            XCTFail("the job should be refused")
        } catch let error as ClusterClientError {
            XCTAssertTrue(error.message.contains("unknown filter \"oilpaint\""), error.message)
            XCTAssertTrue(error.message.contains("sepia"), error.message)
        }
        submit.filters = [.with { $0.name = "sepia"; $0.params = [.with { $0.key = "intensity"; $0.value = "7" }] }]
        do {
            _ = try await client.submit(submit)
            XCTFail("the job should be refused")
        } catch let error as ClusterClientError {
            XCTAssertTrue(error.message.contains("intensity=7"), error.message)
        }
        XCTAssertEqual(server.requestCount, 0, "nothing was downloaded")
    }

    /// The job's chroma reaches the worker's encoder, above the quality at which it would pick
    /// 4:4:4 by itself.
    func testTheJobsChromaSubsamplingIsWhatTheOutputsAre() async throws {
        for (chroma, factors) in [(Photocluster_V1_ChromaSubsampling.automatic, [1, 1]), (.s422, [2, 1]), (.s420, [2, 2])] {
            var submit = try ClusterHarness.submit([("coffee", "\(server.baseURL)/coffee.jpg")], out: out.appendingPathComponent("\(chroma)"))
            submit.quality = 95
            submit.image.chroma = chroma
            let (_, summary, _) = try await ClusterHarness.run(submit, on: client)
            let photo = try XCTUnwrap(summary?.photo(named: "coffee"))
            XCTAssertEqual(photo.state, .done, photo.reason)
            XCTAssertEqual(JPEGSampling.lumaFactors(try Data(contentsOf: URL(fileURLWithPath: photo.outputPath))), factors, "\(chroma)")
        }
    }

    /// A parameter that names its values is checked by the coordinator as the filter takes it:
    /// by name as well as by number, and a wrong name is refused listing the names.
    func testTheCoordinatorTakesAResizeKernelByNameAndRefusesAnUnknownOne() async throws {
        XCTAssertTrue(eventually { self.cluster.coordinator.workerSnapshot().count == 2 })
        var submit = try ClusterHarness.submit([("coffee", "\(server.baseURL)/coffee.jpg")], out: out, filters: [])
        submit.filters = try ClusterHarness.filterSpecs(["resize:width=64,height=64,kernel=sinc"])
        do {
            _ = try await client.submit(submit)
            XCTFail("the job should be refused")
        } catch let error as ClusterClientError {
            XCTAssertTrue(error.message.contains("kernel=sinc is not one of nearest, linear, cubic, lanczos3"), error.message)
        }
        submit.filters = try ClusterHarness.filterSpecs(["resize:width=64,height=64,kernel=Cubic"])
        let (_, summary, _) = try await ClusterHarness.run(submit, on: client)
        let photo = try XCTUnwrap(summary?.photo(named: "coffee"))
        XCTAssertEqual(photo.state, .done, photo.reason)
        XCTAssertEqual(max(photo.width, photo.height), 64)
    }

    func testIndexJSONRecordsEveryPhoto() async throws {
        let photos = [("clock", "\(server.baseURL)/clock.jpg"), ("gone", "\(server.baseURL)/gone.jpg")]
        _ = try await ClusterHarness.run(try ClusterHarness.submit(photos, out: out), on: client)
        let index = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("index.json"))) as? [String: Any])
        let entries = try XCTUnwrap(index["photos"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(entries[0]["state"] as? String, "done")
        XCTAssertEqual(entries[0]["path"] as? String, out.appendingPathComponent("clock.jpg").path)
        XCTAssertEqual(entries[1]["state"] as? String, "failed")
        XCTAssertEqual(entries[1]["stage"] as? String, "download")
        XCTAssertTrue((entries[1]["reason"] as? String)?.hasPrefix("HTTP 404") == true)
        XCTAssertNil(entries[1]["path"])
    }

    func testDuplicateURLsAreFetchedAndComputedOnce() async throws {
        let photos = (1...4).map { ("copy\($0)", "\(server.baseURL)/coffee.jpg") }
        let (_, summary, _) = try await ClusterHarness.run(try ClusterHarness.submit(photos, out: out), on: client)
        XCTAssertEqual(summary?.progress.succeeded, 4)
        XCTAssertEqual(server.requests(forPath: "/coffee.jpg"), 1)
        let outputs = try (1...4).map { try Data(contentsOf: out.appendingPathComponent("copy\($0).jpg")) }
        XCTAssertEqual(Set(outputs).count, 1, "every copy has the one result")
    }

    func testARefusedOutputDirectoryRejectsTheJob() async throws {
        let blocker = out.appendingPathComponent("file")
        try Data().write(to: blocker)
        let submit = try ClusterHarness.submit([("a", "\(server.baseURL)/astronaut.jpg")], out: blocker.appendingPathComponent("sub"))
        do {
            _ = try await client.submit(submit)
            XCTFail("the job should be refused")
        } catch let error as ClusterClientError {
            XCTAssertTrue(error.message.contains("sub"), error.message)
        }
    }
}
