import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterWorker
import XCTest

/// `LocalEngine`, the worker's engine without its node (what the pipeline benchmark's
/// `--engine` runs), through its public face only: real downloads over loopback, real codecs.
final class LocalEngineTests: XCTestCase {
    func testEachGraphEndsOnceWithItsOutputOrItsOwnFailure() throws {
        let photo = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("retina.jpg"))
        let server = try LoopbackHTTPServer { request in
            request.path.hasPrefix("/missing") ? .notFound() : HTTPResponse(body: photo)
        }
        defer { server.stop() }
        let outcomes = LockedBox<[UInt32: [LocalEngine.Outcome]]>([:])
        let engine = LocalEngine(configuration: .init(concurrency: 2, downloadSlots: 4).allowingLoopback()) { job, photo, outcome in
            XCTAssertEqual(job, "local")
            outcomes.withLock { $0[photo, default: []].append(outcome) }
        }
        defer { engine.shutdown() }

        let count: UInt32 = 8
        for index in 0..<count {
            engine.submit(.with {
                $0.jobID = "local"
                $0.photoIndex = index
                $0.name = "p\(index)"
                $0.url = "\(server.baseURL)/\(index == 5 ? "missing" : "photo")/\(index)"
                $0.filters = [.with { $0.name = "grayscale" }]
                $0.format = .png
                $0.attempt = 1
            })
        }
        XCTAssertTrue(eventually(timeout: 30) { outcomes.withLock { $0.count } == Int(count) }, "every graph ended")

        let (original, _) = try ImageCodec.decode(photo)
        for (index, ended) in outcomes.current.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(ended.count, 1, "photo \(index) ended once")
            switch ended.first {
            case .encoded(let data, let format)?:
                XCTAssertNotEqual(index, 5, "the missing photo has no output")
                XCTAssertEqual(format, .png)
                let (image, decodedFormat) = try ImageCodec.decode(data)
                XCTAssertEqual(decodedFormat, .png)
                XCTAssertEqual(image.width, original.width)
                XCTAssertEqual(image.height, original.height)
                let pixel = image[image.width / 2, image.height / 2]
                XCTAssertEqual(pixel.r, pixel.g, "grayscale ran on photo \(index)")
                XCTAssertEqual(pixel.g, pixel.b, "grayscale ran on photo \(index)")
            case .failed(let stage, let reason)?:
                XCTAssertEqual(index, 5, "photo \(index) failed at \(stage): \(reason)")
                XCTAssertEqual(stage, "download")
                XCTAssertTrue(reason.contains("404"), reason)
            case .cancelled?, nil:
                XCTFail("photo \(index) ended \(String(describing: ended.first))")
            }
        }
    }
}
