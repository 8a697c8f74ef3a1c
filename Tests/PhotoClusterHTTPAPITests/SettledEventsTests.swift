import Foundation
import PhotoClusterProto
import XCTest

@testable import PhotoClusterHTTPAPI

/// What a job's event stream sends: the photos settled after the client's last event, in the
/// order they settled, then each new one once, and the end.
final class SettledEventsTests: XCTestCase {
    private func photo(_ name: String, _ state: Photocluster_V1_PhotoState, place: UInt32) -> Photocluster_V1_PhotoStatus {
        .with {
            $0.name = name
            $0.state = state
            $0.settledSequence = place
            $0.outputPath = state == .done ? "/out/\(name).jpg" : ""
            $0.reason = state == .failed ? "HTTP 404" : ""
        }
    }

    private func text(_ chunks: [ArraySlice<UInt8>]) -> String { chunks.map { String(decoding: $0, as: UTF8.self) }.joined() }

    func testAResumedStreamSendsThePhotosSettledAfterItsLastEventInOrder() {
        var events = SettledEvents(after: 2)
        let job = Photocluster_V1_JobSummary.with {
            $0.phase = .inProgress
            $0.photos = [photo("c", .done, place: 4), photo("a", .done, place: 1), photo("d", .new, place: 0), photo("b", .failed, place: 3),
                         photo("e", .done, place: 2)]
            $0.progress = .with { $0.total = 5; $0.done = 4 }
        }
        let started = text(events.start(job))
        XCTAssertEqual(started.components(separatedBy: "event: photo").count - 1, 2, started)
        XCTAssertTrue(started.hasPrefix("event: photo\nid: 3\ndata: {\"index\":0,\"name\":\"b\",\"reason\":\"HTTP 404\",\"state\":\"failed\"}\n\n"), started)
        XCTAssertTrue(started.contains("event: photo\nid: 4\ndata: {\"index\":0,\"name\":\"c\",\"output\":\"c.jpg\",\"state\":\"done\"}\n\n"), started)
        XCTAssertTrue(started.hasSuffix("event: progress\ndata: {\"cancelled\":0,\"done\":4,\"failed\":0,\"succeeded\":0,\"total\":5}\n\n"), started)
        XCTAssertFalse(events.ended)

        // A photo heard already (it came in the status too) is not sent again; a later one is.
        XCTAssertEqual(text(events.handle(.with { $0.photo = photo("c", .done, place: 4) })), "")
        XCTAssertTrue(text(events.handle(.with { $0.photo = photo("d", .done, place: 5) })).hasPrefix("event: photo\nid: 5\n"))
        XCTAssertEqual(text(events.handle(.with { $0.phase = .willFinish })), "")
        let end = text(events.handle(.with { $0.finished = .with { $0.jobID = "job-1"; $0.phase = .didFinish } }))
        XCTAssertTrue(end.hasPrefix("event: end\nid: 5\ndata: {"), end)
        XCTAssertTrue(end.contains("\"state\":\"finished\""), end)
        XCTAssertTrue(events.ended)
    }

    func testAFinishedJobsStreamEndsAtOnce() {
        var events = SettledEvents(after: 0)
        let chunks = text(events.start(.with { $0.phase = .cancelled; $0.photos = [photo("a", .cancelled, place: 1)] }))
        XCTAssertTrue(chunks.hasPrefix("event: photo\nid: 1\n"), chunks)
        XCTAssertTrue(chunks.contains("event: end\nid: 1\n"), chunks)
        XCTAssertTrue(events.ended)
    }
}
