import Foundation
import XCTest

@testable import PhotoClusterHTTPAPI

/// The API's own rules before a request reaches the coordinator: rate limits per token, and a
/// submit body checked as `cluster submit` checks its options and manifest.
final class RequestRulesTests: XCTestCase {
    func testATokenOverItsRateWaitsAndOthersDoNot() {
        let limiter = RateLimiter(APILimits(requestsPerSecond: 10, burst: 3, jobsPerMinute: 2))
        for _ in 0..<3 { XCTAssertNil(limiter.admit("alice", submitting: false, now: 100)) }
        let wait = limiter.admit("alice", submitting: false, now: 100)
        XCTAssertEqual(wait ?? 0, 0.1, accuracy: 1e-9, "the fourth request of a burst of three at 10 a second waits 0.1 s")
        XCTAssertNil(limiter.admit("bob", submitting: false, now: 100), "one token's burst held another back")
        XCTAssertNil(limiter.admit("alice", submitting: false, now: 100.11))

        XCTAssertNil(limiter.admit("carol", submitting: true, now: 0))
        XCTAssertNil(limiter.admit("carol", submitting: true, now: 0.5))
        XCTAssertEqual(limiter.admit("carol", submitting: true, now: 1) ?? 0, 29, accuracy: 1e-6, "a third job in a minute at 2 a minute")
    }

    func testASubmitBodyIsCheckedAsTheCommandLinesIs() throws {
        func problem(_ body: Components.Schemas.SubmitRequest) -> String? {
            do {
                _ = try JobSubmission.message(for: body)
                return nil
            } catch {
                return (error as? APIProblem).map { "\($0.status) \($0.detail)" } ?? "\(error)"
            }
        }
        let manifest: [Components.Schemas.ManifestEntry] = [.init(name: "a", url: "https://example.com/a.jpg"), .init(name: "b", url: "https://example.com/b.jpg")]
        XCTAssertNil(problem(.init(manifest: manifest, filters: ["sepia", "resize:width=100"], out: "site/a")))
        XCTAssertEqual(problem(.init(manifest: manifest, filters: ["resize:width"])).map { String($0.prefix(4)) }, "400 ")
        XCTAssertTrue(problem(.init(manifest: manifest, filters: ["resize:width"]))?.contains("\"width\" is not key=value") == true)
        let twins: [Components.Schemas.ManifestEntry] = [.init(name: "caf\u{E9}", url: "https://example.com/1.jpg"), .init(name: "cafe\u{301}", url: "https://example.com/2.jpg")]
        XCTAssertTrue(problem(.init(manifest: twins))?.hasPrefix("400 ") == true, "names equal after normalisation were taken")
        XCTAssertTrue(problem(.init(manifest: manifest, quality: 0))?.contains("quality must be between 1 and 100") == true)
        XCTAssertTrue(problem(.init(manifest: manifest, format: .png, lossless: true))?.contains("lossless is for format webp") == true)
        XCTAssertTrue(problem(.init(manifest: manifest, format: .png, chroma: ._420))?.contains("chroma is for JPEG") == true)
        XCTAssertTrue(problem(.init(manifest: manifest, out: "x", outShared: "/shared/x"))?.contains("give one") == true)
        XCTAssertTrue(problem(.init(manifest: manifest, viewportMode: true))?.contains("give a viewport") == true)
        let s3 = try JobSubmission.message(for: .init(manifest: manifest, out: "s3://bucket/prefix"))
        XCTAssertEqual(s3.outputDir, "")
        XCTAssertTrue(s3.hasOutputPlace)
    }

    func testABodyThatDoesNotDecodeSaysWhereAndListsAFieldsChoices() {
        func reason(_ json: String) -> String? {
            do {
                _ = try JSONDecoder().decode(Components.Schemas.SubmitRequest.self, from: Data(json.utf8))
                return nil
            } catch let error as DecodingError {
                return RequestMismatch.reason(error)
            } catch {
                return "\(error)"
            }
        }
        let manifest = #""manifest": [{"name": "a", "url": "https://example.com/a.jpg"}]"#
        XCTAssertNil(reason("{\(manifest), \"format\": \"avif\"}"))
        XCTAssertEqual(reason("{\(manifest), \"format\": \"heic\"}"), "format: heic is not one of jpeg, png, webp, avif")
        XCTAssertEqual(reason("{\(manifest), \"colour\": \"p3\"}"), "colour: p3 is not one of keep, srgb")
        XCTAssertEqual(reason(#"{"format": "png"}"#), "manifest is missing")
        XCTAssertEqual(reason("{\(manifest), \"quality\": \"high\"}"), "quality: expected a whole number, found a string")
        XCTAssertEqual(reason(#"{"manifest": null}"#), "manifest: expected a list, found null")
        XCTAssertEqual(reason(#"{"manifest": {"a": "b"}}"#), "manifest: expected a list, found an object")
        XCTAssertEqual(reason(#"{"manifest": [{"name": 3, "url": "https://example.com/a.jpg"}]}"#), "manifest[0].name: expected a string, found a number")
    }
}
