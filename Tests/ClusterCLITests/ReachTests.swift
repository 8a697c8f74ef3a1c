import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// What a worker downloads from, as a user starts it: photos of a host on a private network
/// arrive with the default flags, while loopback (however it is spelled, and behind a redirect)
/// is refused before anything is asked of it, with a reason that says so and what to do.
/// `--allow-loopback` lets loopback through and nothing else.
final class ReachTests: XCTestCase {
    private var processes: [RunningCommand] = []
    private var work: URL!
    /// A service only the worker's host should reach: it must never see a request.
    private var loopback: LoopbackHTTPServer!
    private let secret = "internal-service-answer"

    override func setUpWithError() throws {
        work = Repository.temporaryDirectory("reach")
        let secret = self.secret
        loopback = try LoopbackHTTPServer { _ in HTTPResponse(body: Data(secret.utf8)) }
    }

    override func tearDown() {
        for process in processes { process.stop() }
        loopback?.stop()
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    /// A coordinator and one worker (`workerFlags` added) on loopback; the client endpoint.
    private func startCluster(allowLoopback: Bool) throws -> String {
        let base = LoopbackPorts.consecutive(2)
        let coordinator = try CommandRunner.start([
            "coordinator", "--insecure", "--bind", "tcp://127.0.0.1:\(base)", "--client-bind", "tcp://127.0.0.1:\(base + 1)",
            "--metrics-bind", "off", "--http", "off", "--output-root", work.path,
        ])
        processes.append(coordinator)
        processes.append(try CommandRunner.start(
            ["worker", "--insecure", "--coordinator", "tcp://127.0.0.1:\(base)", "--concurrency", "1", "--id", "reach", "--metrics-bind", "off"],
            allowLoopback: allowLoopback))
        XCTAssertTrue(eventually(timeout: 20) { coordinator.stderrSoFar.contains("worker reach joined") }, coordinator.stderrSoFar)
        return "tcp://127.0.0.1:\(base + 1)"
    }

    /// Submits `entries` (name, URL) and returns the JSON report.
    private func submit(_ entries: [(String, String)], to endpoint: String) throws -> [String: Any] {
        let manifest = work.appendingPathComponent("photos-\(UUID().uuidString.prefix(6)).json")
        let objects = entries.map { ["name": $0.0, "url": $0.1] }
        try JSONSerialization.data(withJSONObject: objects).write(to: manifest)
        let result = try CommandRunner.run([
            "submit", manifest.path, "--coordinator", endpoint, "--out", work.appendingPathComponent("out").path, "--json",
        ], timeout: 120)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout + result.stderr)
    }

    /// The failed photos of a report by name.
    private func failures(_ report: [String: Any]) throws -> [String: [String: String]] {
        let failed = try XCTUnwrap(report["failed"] as? [[String: String]], "\(report)")
        return Dictionary(uniqueKeysWithValues: failed.map { ($0["name"] ?? "?", $0) })
    }

    func testPhotosOfAPrivateHostArriveWhileLoopbackIsRefused() throws {
        let lab = try NetworkLab()
        defer { lab.tearDown() }
        let host = try lab.addHostLinkedHere("photos").host
        // The photo store: the sample photos, a page that is not an image, and a redirect to the
        // loopback service (which the worker's host reaches, and the photo store's does not).
        let server = """
            import functools, http.server, sys
            class Handler(http.server.SimpleHTTPRequestHandler):
                def do_GET(self):
                    if self.path.startswith("/to-loopback"):
                        self.send_response(302)
                        self.send_header("Location", sys.argv[3])
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                    elif self.path.startswith("/page"):
                        body = sys.argv[4].encode()
                        self.send_response(200)
                        self.send_header("Content-Type", "text/plain")
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                    else:
                        super().do_GET()
                def log_message(self, *args):
                    pass
            http.server.ThreadingHTTPServer((sys.argv[1], 8000), functools.partial(Handler, directory=sys.argv[2])).serve_forever()
            """
        let photoServer = try RunningCommand(binary: NetworkLab.ipTool, arguments: lab.command(on: "photos", [
            "python3", "-c", server, host, Repository.samplePhotos.path, "\(loopback.baseURL)/secret.jpg", secret,
        ]))
        processes.append(photoServer)
        let probe = "import socket; socket.create_connection(('\(host)', 8000), 1)"
        XCTAssertTrue(eventually(timeout: 20) { (try? Tool.run("/usr/bin/python3", ["-c", probe]).status) == 0 },
                      "the photo store listens: \(photoServer.stderrSoFar)")

        let endpoint = try startCluster(allowLoopback: false)
        let photos = Array(Repository.samplePhotoFiles.prefix(3))
        let port = loopback.port
        let report = try submit(photos.map { ($0, "http://\(host):8000/\($0)") } + [
            ("loopback", "http://127.0.0.1:\(port)/secret.jpg"),
            ("decimal", "http://2130706433:\(port)/secret.jpg"),
            ("mapped", "http://[::ffff:127.0.0.1]:\(port)/secret.jpg"),
            ("redirect", "http://\(host):8000/to-loopback"),
            ("page", "http://\(host):8000/page"),
        ], to: endpoint)

        XCTAssertEqual(report["succeeded"] as? Int, photos.count, "\(report)")
        let failed = try failures(report)
        XCTAssertEqual(Set(failed.keys), ["loopback", "decimal", "mapped", "redirect", "page"])
        let advice = "the worker refuses loopback addresses; start workers with --allow-loopback to allow them"
        for name in ["loopback", "decimal", "mapped"] {
            let error = failed[name]?["error"] ?? ""
            XCTAssertEqual(failed[name]?["stage"], "download", name)
            XCTAssertTrue(error.hasPrefix("download refused: "), "\(name): \(error)")
            XCTAssertTrue(error.contains("127.0.0.1") && error.contains("a loopback address"), "\(name): \(error)")
            XCTAssertTrue(error.hasSuffix(advice), "\(name): \(error)")
        }
        // The redirect's target (and its port) is not told: only that it led to loopback.
        XCTAssertEqual(failed["redirect"]?["error"], "download refused after a redirect: 127.0.0.1 is a loopback address; \(advice)")
        XCTAssertEqual(failed["redirect"]?["url"], "http://\(host):8000/to-loopback")
        // A page that is not an image is named as such, without what it said.
        XCTAssertEqual(failed["page"]?["stage"], "decode")
        XCTAssertTrue(failed["page"]?["error"]?.contains("not an image") == true, "\(failed["page"] ?? [:])")
        for (name, failure) in failed {
            XCTAssertFalse(failure["error"]?.contains(secret) ?? true, "\(name): \(failure)")
        }
        XCTAssertEqual(loopback.requestCount, 0, "the loopback service was asked")
        XCTAssertEqual(loopback.connectionCount, 0, "the loopback service was connected to")
    }

    func testAllowLoopbackAllowsLoopbackAndNothingElse() throws {
        let photos = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        defer { photos.stop() }
        let endpoint = try startCluster(allowLoopback: true)
        let photo = Repository.samplePhotoFiles[0]
        let report = try submit([
            (photo, "\(photos.baseURL)/\(photo)"),
            ("metadata", "http://169.254.169.254/latest/meta-data/"),
            ("mapped-metadata", "http://[::ffff:169.254.169.254]/latest/meta-data/"),
            ("nat64-metadata", "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/"),
            ("link-local", "http://169.254.10.10/x.jpg"),
            ("carrier-grade-nat", "http://100.64.0.1/x.jpg"),
            ("unspecified", "http://0.0.0.0:\(photos.port)/\(photo)"),
        ], to: endpoint)
        XCTAssertEqual(report["succeeded"] as? Int, 1, "\(report)")
        XCTAssertEqual(photos.requests(forPath: "/\(photo)"), 1)
        let failed = try failures(report)
        let kinds = [
            "metadata": "a cloud metadata address", "mapped-metadata": "a cloud metadata address", "nat64-metadata": "a cloud metadata address",
            "link-local": "a link-local address", "carrier-grade-nat": "a carrier-grade NAT address", "unspecified": "an unspecified address",
        ]
        XCTAssertEqual(Set(failed.keys), Set(kinds.keys))
        for (name, kind) in kinds {
            let error = failed[name]?["error"] ?? ""
            XCTAssertTrue(error.hasPrefix("download refused: ") && error.contains(kind), "\(name): \(error)")
            XCTAssertFalse(error.contains("--allow-loopback"), "\(name): \(error)")
        }
    }
}
