import Foundation
import PhotoClusterTestSupport
import XCTest

/// `cluster top` while a job runs: in tmux it redraws one screen in place and leaves on Ctrl-C;
/// off a terminal it prints one plain line per refresh.
final class TopCommandTests: XCTestCase {
    func testTopRefreshesInPlaceInTmuxAndPrintsLinesOffATerminal() throws {
        let tmux = try requireTool("tmux")
        let cluster = try ObservedCluster(label: "top", photoDelay: 0.2)
        defer { cluster.stop() }
        let job = try cluster.startBatchJob(count: 40)
        // A tmux server of the test's own, on its own socket, ended with the test.
        let server = "photocluster-top-\(UUID().uuidString.prefix(6))"
        func tmuxRun(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try Tool.run(tmux, ["-L", server] + arguments, timeout: 20)
        }
        defer { _ = try? tmuxRun(["kill-server"]) }
        let session = "top"
        let command = "\(Repository.clusterBinary.path) top --coordinator \(cluster.clientEndpoint) --interval 0.3"
        XCTAssertEqual(try tmuxRun(["-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "160", "-y", "40", command]).status, 0)
        func screen() -> String { (try? tmuxRun(["capture-pane", "-p", "-t", session]).output) ?? "" }

        var first = ""
        XCTAssertTrue(eventually(timeout: 15) {
            first = screen()
            return first.contains("w1") && first.range(of: #"\[█+░*\] +[0-9]+%"#, options: .regularExpression) != nil
        }, "a worker row and a job's progress bar: \(first)")
        XCTAssertTrue(first.contains("WORKERS 1"), first)
        XCTAssertTrue(first.contains("JOBS 1"), first)
        XCTAssertNotNil(first.range(of: #"PHOTOS/S +LEFT"#, options: .regularExpression), "the job's time left: \(first)")
        XCTAssertTrue(first.contains("photos/s"), first)
        XCTAssertTrue(first.contains("megapixels/s"), first)
        XCTAssertNotNil(first.range(of: #"up [0-9]+ s, [0-9]+ MiB resident"#, options: .regularExpression), "the coordinator's own memory: \(first)")
        XCTAssertTrue(eventually(timeout: 5) { screen().range(of: #"RESIDENT\n.+ [0-9]+M\n"#, options: .regularExpression) != nil },
                      "the worker's resident memory, from its heartbeats: \(screen())")
        XCTAssertNotNil(first.range(of: #"coordinator [0-9]+ +download [0-9]+\+[0-9]+"#, options: .regularExpression), first)

        var later = ""
        XCTAssertTrue(eventually(timeout: 10) {
            later = screen()
            return later != first
        }, "the view refreshes")
        XCTAssertEqual(later.components(separatedBy: "PhotoCluster top").count, 2, "one screen redrawn in place, not appended: \(later)")

        _ = try tmuxRun(["send-keys", "-t", session, "C-c"])
        XCTAssertTrue(eventually(timeout: 5) { (try? tmuxRun(["has-session", "-t", session]).status) != 0 }, "Ctrl-C ends top")

        let plain = try CommandRunner.run(["top", "--coordinator", cluster.clientEndpoint, "--count", "2", "--interval", "0.2"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let lines = plain.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, plain.stdout)
        XCTAssertTrue(lines.allSatisfy { $0.contains("workers=1") && $0.contains("photos/s=") && !$0.contains("\u{1B}") }, plain.stdout)
        XCTAssertEqual(job.finish().status, 0)
    }
}
