import Foundation
import LoopbackHTTP
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterEmbedded
import PhotoClusterImaging
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

/// More than 40 bad inputs — manifests, images, URLs and protocol frames — each refused with a
/// clear reason, while the cluster stays up and the good photos finish.
final class BadInputCorpusTests: XCTestCase {
    /// Bad manifests: every one fails before any work with an error naming the file.
    func testBadManifests() {
        let corpus: [(String, String)] = [
            ("", "no photos"), ("# only a comment\n", "no photos"), ("{}", "no photos"), ("[]", "no photos"),
            ("{", "not valid JSON"), ("[1, 2]", "must be a dictionary"), (#"{"a": 1}"#, "URL string"),
            (#"{"a": "nope"}"#, "not a valid URL"), (#"{"a": "http://"}"#, "no host"), (#"[{"name": "a"}]"#, "\"url\""),
            (#"[{"url": "http://h/a.jpg"}]"#, "\"name\""), (#"[{"name": "a", "url": "http://h/a", "filters": 3}]"#, "array of strings"),
            ("<plist><dict><key>a</key></dict></plist>", "property list"), ("<plist><integer>3</integer></plist>", "top level"),
            ("http://h/a.jpg\nhttp://g/a.jpg", "unique"), ("not a url at all", "not a URL"), ("http://h/", "file name"),
            ("\u{0}\u{1}\u{2}binary", "not a URL"), (String(repeating: "x", count: 9000), "not a URL"),
        ]
        for (text, fragment) in corpus {
            XCTAssertThrowsError(try ManifestParser().parse(Data(text.utf8), file: "bad.json"), "\(text.prefix(40))") { error in
                XCTAssertTrue("\(error)".hasPrefix("bad.json"), "\(error)")
                XCTAssertTrue("\(error)".contains(fragment), "\(text.prefix(40)): \(error)")
            }
        }
    }

    /// Bad images and bad URLs in one job with good photos: each bad one fails alone with its
    /// stage and reason; the good ones finish; garbage frames thrown at both of the
    /// coordinator's sockets are dropped and counted, and it keeps answering.
    func testBadPhotosFailAloneAndGarbageFramesAreDropped() async throws {
        let photos = Repository.samplePhotos
        let good = try Data(contentsOf: photos.appendingPathComponent("clock.jpg"))
        let png = try Data(contentsOf: photos.appendingPathComponent("horse.png"))
        var hugeJPEG = good
        // Patch the SOF0 frame's height and width to 64250 x 64250: 5 KB that claims 4 gigapixels.
        if let sof = (0..<hugeJPEG.count - 8).first(where: { hugeJPEG[$0] == 0xFF && (hugeJPEG[$0 + 1] == 0xC0 || hugeJPEG[$0 + 1] == 0xC2) }) {
            hugeJPEG.replaceSubrange((sof + 5)..<(sof + 9), with: [0xFA, 0xFA, 0xFA, 0xFA])
        }
        var hugePNG = png
        hugePNG.replaceSubrange(16..<24, with: [0, 0, 0xFA, 0xFA, 0, 0, 0xFA, 0xFA])
        let images: [String: Data] = [
            "/empty.jpg": Data(), "/html.jpg": Data("<html><body>404</body></html>".utf8),
            "/half.jpg": good.prefix(good.count / 2), "/head.jpg": good.prefix(20), "/half.png": png.prefix(png.count / 2),
            "/noise.jpg": Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }),
            "/gif.gif": Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8), "/huge.jpg": hugeJPEG, "/huge.png": hugePNG,
            "/badcrc.png": { var d = png; d[40] ^= 0xFF; return d }(), "/zeros.png": Data(repeating: 0, count: 1000),
            "/jpegmagic.jpg": Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0]),
        ]
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/good.jpg": return HTTPResponse(body: good)
            case "/good.png": return HTTPResponse(body: png)
            case "/loop": return .redirect(to: "/loop")
            case "/error": return HTTPResponse(status: 500)
            case "/gone": return HTTPResponse(status: 410)
            case "/forbidden": return HTTPResponse(status: 403)
            default: return images[request.path].map { HTTPResponse(body: $0) } ?? .notFound()
            }
        }
        defer { server.stop() }
        let urls: [String: String] = [
            "ftp": "ftp://127.0.0.1/a.jpg", "file": "file:///etc/passwd", "missing": "\(server.baseURL)/missing.jpg",
            "loop": "\(server.baseURL)/loop", "error": "\(server.baseURL)/error", "gone": "\(server.baseURL)/gone",
            "forbidden": "\(server.baseURL)/forbidden", "refused": "http://127.0.0.1:9/a.jpg",
            "badhost": "http://host.invalid/a.jpg",
        ]
        var entries: [(String, String)] = [("good-jpeg", "\(server.baseURL)/good.jpg"), ("good-png", "\(server.baseURL)/good.png")]
        entries += images.keys.sorted().map { ("image\($0)", "\(server.baseURL)\($0)") }
        entries += urls.sorted { $0.key < $1.key }.map { ("url-\($0.key)", $0.value) }

        let cluster = try EmbeddedCluster(workers: 2, totalConcurrency: 2)
        try cluster.start()
        let client = try ClusterClient(endpoint: cluster.clientEndpoint, context: cluster.context)
        let out = Repository.temporaryDirectory("corpus")
        defer {
            client.close()
            cluster.stop()
            try? FileManager.default.removeItem(at: out)
        }

        // Garbage frames at both sockets, before and while the job runs.
        let intruder = try ZMQSocket(context: cluster.context, kind: .dealer)
        let intruderClient = try ZMQSocket(context: cluster.context, kind: .dealer)
        defer { intruder.close(); intruderClient.close() }
        try intruder.connect(cluster.coordinator.boundWorkerEndpoint)
        try intruderClient.connect(cluster.clientEndpoint)
        let frames: [[Data]] = [
            [Data()], [Data([0xFF])], [Data([0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F])], [Data("GET / HTTP/1.1\r\n\r\n".utf8)],
            [Data(repeating: 0x08, count: 100)], [Data([0x12, 0x05, 0x01])], [Data("a".utf8), Data("b".utf8)],
            [Data((0..<64).map { UInt8($0) })],
        ]
        for frame in frames {
            try intruder.send(frame)
            try intruderClient.send(frame)
        }

        let (_, summary, _) = try await ClusterHarness.run(try ClusterHarness.submit(entries, out: out), on: client)
        let result = try XCTUnwrap(summary)
        XCTAssertEqual(result.photo(named: "good-jpeg")?.state, .done)
        XCTAssertEqual(result.photo(named: "good-png")?.state, .done)
        XCTAssertEqual(Int(result.progress.failed), entries.count - 2)
        for photo in result.photos where photo.state == .failed {
            XCTAssertFalse(photo.reason.isEmpty, photo.name)
            XCTAssertFalse(photo.stage.isEmpty, photo.name)
            let expectedStage = photo.name.hasPrefix("image/") ? "decode" : "download"
            XCTAssertEqual(photo.stage, expectedStage, "\(photo.name): \(photo.reason)")
        }
        XCTAssertTrue(result.photo(named: "image/huge.jpg")?.reason.contains("over the limit") == true, result.photo(named: "image/huge.jpg")?.reason ?? "")
        XCTAssertTrue(result.photo(named: "url-ftp")?.reason.contains("not allowed") == true)
        XCTAssertTrue(result.photo(named: "url-gone")?.reason.hasPrefix("HTTP 410") == true)
        XCTAssertEqual(result.photo(named: "url-error")?.attempts, 3, "HTTP 500 is transient: retried")
        XCTAssertEqual(result.photo(named: "url-forbidden")?.attempts, 1, "HTTP 403 is permanent")

        let status = try await client.status()
        XCTAssertGreaterThanOrEqual(status.droppedFrames, UInt64(frames.count), "garbage frames were counted")
        XCTAssertEqual(status.workers.count, 2, "the cluster stayed up")
        print("bad-input corpus: \(19 + images.count + urls.count + frames.count * 2) inputs refused; \(status.droppedFrames) frames dropped")
    }
}
