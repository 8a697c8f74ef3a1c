import Foundation
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

final class ProtocolTests: XCTestCase {
    /// `proto/generate` records the hashes of the schema and of the code it generated from it;
    /// editing either without regenerating fails here. (`make test` also regenerates the code
    /// with protoc and compares it byte for byte.)
    func testGeneratedCodeMatchesTheSchema() throws {
        let stamp = Repository.root.appendingPathComponent("Sources/PhotoClusterProto/GENERATED.sha256")
        let recorded = try String(contentsOf: stamp, encoding: .utf8)
        let lines = recorded.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        XCTAssertTrue(lines.contains { $0.last == "proto/cluster.proto" }, "the schema is stamped")
        for line in lines {
            let path = String(line.last!)
            let digest = Repository.temporaryDirectory("sha256").appendingPathComponent("out")
            defer { try? FileManager.default.removeItem(at: digest.deletingLastPathComponent()) }
            let sha256sum = try ChildProcess("/usr/bin/sha256sum", [Repository.root.appendingPathComponent(path).path], output: digest)
            XCTAssertTrue(sha256sum.waitForExit(timeout: 30), "sha256sum \(path) finished")
            let actual = ((try? String(contentsOf: digest, encoding: .utf8)) ?? "").split(separator: " ").first
            XCTAssertEqual(actual, line.first, "\(path) changed since proto/generate ran: run proto/generate and commit the result")
        }
    }

    func testEnvelopesRoundTripAndGarbageIsRefused() {
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = "job-1"
        graph.photoIndex = 7
        graph.filters = [.with { $0.name = "sepia"; $0.params = [.with { $0.key = "intensity"; $0.value = "0.5" }] }]
        var message = Photocluster_V1_CoordinatorToWorker()
        message.body = .assign(.with { $0.graph = graph })
        let decoded = Envelope.decode(Photocluster_V1_CoordinatorToWorker.self, from: Envelope.encode(message))
        XCTAssertEqual(decoded, message)
        XCTAssertNil(Envelope.decode(Photocluster_V1_CoordinatorToWorker.self, from: Data([0xFF, 0xFF, 0xFF, 0xFF, 0x0F])))
        XCTAssertNil(Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: Data("GET / HTTP/1.1\r\n".utf8)))
    }
}
