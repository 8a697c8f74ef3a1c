import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterStorage
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// A job keeps its photos as small records (strings in one arena, filters and workers as
/// numbers) and writes what is large (index.json, the finished event) piece by piece: what it
/// gives back must be what it was given, in the forms clients and files had before.
final class CompactJobTests: XCTestCase {
    private func submit(_ photos: [(name: String, url: String)], filters: [String: [String]] = [:]) throws -> Photocluster_V1_SubmitJob {
        var submit = try ClusterHarness.submit(photos, out: URL(fileURLWithPath: "/tmp/compact"))
        for index in submit.photos.indices {
            if let chain = filters[submit.photos[index].name] { submit.photos[index].filters = try ClusterHarness.filterSpecs(chain) }
        }
        return submit
    }

    func testAPhotoRecordHoldsNoStringOfItsOwnBeyondAFailuresReason() {
        XCTAssertLessThanOrEqual(MemoryLayout<PhotoRecord>.stride, 72, "a million photos cost this many bytes each in records alone")
    }

    func testNamesURLsStemsAndFiltersComeBackAsGiven() throws {
        let photos = [("Cat.JPG", "http://h/cat.jpg"), ("cat.jpg", "http://h/cat2.jpg"), ("dog", "http://h/ünï cødé?x=1&y=/z"), ("", "http://h/empty")]
        let job = Job(id: "job-1", submit: try submit(photos, filters: ["dog": ["blur:sigma=2", "sepia"]]), outputDirectory: URL(fileURLWithPath: "/tmp/compact"), now: Date())
        XCTAssertEqual(job.photos.map { job.name(of: $0.index) }, photos.map(\.0))
        XCTAssertEqual(job.photos.map { job.url(of: $0.index) }, photos.map(\.1))
        XCTAssertEqual(job.photos.map { job.stem(of: $0.index) }, OutputNaming.stems(for: photos.map(\.0)))
        XCTAssertEqual(job.filters(of: job.photos[2]), try ClusterHarness.filterSpecs(["blur:sigma=2", "sepia"]))
        XCTAssertEqual(job.filters(of: job.photos[0]), try ClusterHarness.filterSpecs(["sepia"]))
        XCTAssertEqual(job.chains.count, 2, "one chain per distinct filter list")
    }

    /// A stored result is checked byte by byte against the path the job expects, in every kind
    /// of place: the one path is accepted, and a path that differs anywhere is not.
    func testAnOutputPathIsRecognisedOnlyWhereTheJobPutsIt() throws {
        let photos = [("Cat.JPG", "http://h/1"), ("cat.jpg", "http://h/2"), ("ünï", "http://h/3")]
        let places: [(URL, OutputPlace?)] = [
            (URL(fileURLWithPath: "/tmp/compact"), nil), (URL(fileURLWithPath: "/"), nil),
            (URL(fileURLWithPath: "/"), try OutputPlace.s3(parsing: "s3://bucket/some/prefix")), (URL(fileURLWithPath: "/"), try OutputPlace.s3(parsing: "s3://bucket")),
            (URL(fileURLWithPath: "/"), try OutputPlace.shared(parsing: "/mnt/photos/out")),
        ]
        for (directory, place) in places {
            let job = Job(id: "job-1", submit: try submit(photos), outputDirectory: directory, place: place, now: Date())
            for index in UInt32(0)..<3 {
                for format in [Photocluster_V1_OutputFormat.jpeg, .png, .webp] {
                    let path = job.outputPath(of: index, format: format)
                    let name = OutputNaming.fileName(stem: job.stem(of: index), format: format.fileExtension)
                    XCTAssertEqual(path, place?.location(of: name) ?? directory.appendingPathComponent(name).path)
                    XCTAssertTrue(job.isOutputPath(path, of: index, format: format), path)
                    var bytes: [UInt8] = []
                    job.appendOutputPath(of: index, format: format, to: &bytes)
                    XCTAssertEqual(String(decoding: bytes, as: UTF8.self), path)
                    for other in [path + "x", String(path.dropLast()), "x" + path.dropFirst(), path.replacingOccurrences(of: ".", with: "_"),
                                  job.outputPath(of: (index + 1) % 3, format: format), job.outputPath(of: index, format: format == .png ? .jpeg : .png)] {
                        XCTAssertFalse(job.isOutputPath(other, of: index, format: format), "\(other) is not \(path)")
                    }
                }
            }
        }
    }

    func testAPhotoFollowsTheFirstWithItsURLAndFiltersAndNoOther() throws {
        let photos = [("a", "http://h/1"), ("b", "http://h/1"), ("c", "http://h/1"), ("d", "http://h/2")]
        let job = Job(
            id: "job-1", submit: try submit(photos, filters: ["c": ["sepia:intensity=0.5"]]), outputDirectory: URL(fileURLWithPath: "/tmp/compact"), now: Date())
        XCTAssertEqual(job.photos.map(\.leader), [nil, 0, nil, nil], "b copies a; c has other filters; d another URL")
        XCTAssertEqual(job.followers(of: 0), [1])
    }

    func testGraphsEncodedByHandDecodeAsTheGraphsTheyStandFor() throws {
        var submit = try submit([("a", "http://h/ünï.jpg"), ("b", "http://h/b.jpg"), ("c", "http://h/c.jpg")], filters: ["b": ["blur:sigma=2", "sepia"]])
        submit.format = .png
        submit.quality = 70
        submit.fastDct = true
        submit.image.noAutoOrient = true
        submit.image.metadata = .keep
        submit.viewportMode = true
        submit.viewport = .with { $0.visibleStart = 1; $0.visibleEnd = 1; $0.prefetch = 1 }
        let job = Job(id: "job-1", submit: submit, outputDirectory: URL(fileURLWithPath: "/tmp/compact"), now: Date())
        job.epoch = 300
        var encoded: [UInt8] = []
        let taken = [0, 1, 2].map { job.assign($0, to: WorkerNumber(value: 7), encodingInto: &encoded) }
        XCTAssertEqual(Set(taken.map(\.band)), [.visible, .prefetch], "the graphs differ in what is their own")

        let decoded = try Photocluster_V1_CoordinatorToWorker(serializedBytes: GraphBatch(encoded: encoded).message(sequence: 1_000))
        XCTAssertEqual(decoded.assignBatch.graphs, taken.map { job.graph(of: $0) })
        XCTAssertEqual(decoded.assignBatch.sequence, 1_000)
    }

    func testGraphsOfAJobWhoseWorkersStoreOutputsCarryThePlaceAndEveryCopysStem() throws {
        // "a" and "A" collide as file names (one gets a stem of its own); "b" copies "a".
        let photos = [("a", "http://h/1.jpg"), ("b", "http://h/1.jpg"), ("A", "http://h/2.jpg"), ("c", "http://h/3.jpg")]
        let job = Job(
            id: "job-2", submit: try submit(photos), outputDirectory: URL(fileURLWithPath: "/tmp/compact"),
            place: try OutputPlace.shared(parsing: "/mnt/photos/out"), now: Date())
        var encoded: [UInt8] = []
        let taken = [0, 2, 3].map { job.assign($0, to: WorkerNumber(value: 3), encodingInto: &encoded) }

        let decoded = try Photocluster_V1_CoordinatorToWorker(serializedBytes: GraphBatch(encoded: encoded).message(sequence: 2))
        XCTAssertEqual(decoded.assignBatch.graphs, taken.map { job.graph(of: $0) })
        XCTAssertEqual(decoded.assignBatch.graphs.first?.outputStems, [job.stem(of: 0), job.stem(of: 1)], "the follower's file is written too")
        XCTAssertTrue(decoded.assignBatch.graphs.allSatisfy(\.hasOutputPlace))
    }

    func testTheFinishedEventDecodesAsTheMessageItIsMadeOf() throws {
        let count = Job.finishedEventPiece * 2 + 7
        let job = Job(
            id: "job-1", submit: try submit((0..<count).map { ("p\($0)", "http://h/p\($0).jpg") }), outputDirectory: URL(fileURLWithPath: "/tmp/compact"), now: Date())
        for index in stride(from: 0, to: count, by: 3) { job.markDone(UInt32(index), format: .png, width: 4, height: 3) }
        job.markFailed(1, stage: "download", reason: "HTTP 404")
        job.enter(.didFinish, at: Date())

        var whole = Photocluster_V1_CoordinatorToClient()
        whole.event.jobID = job.id
        whole.event.finished = job.summary(includePhotos: true, at: Date())
        let decoded = try Photocluster_V1_CoordinatorToClient(serializedBytes: job.encodedFinishedEvent(at: Date()))
        XCTAssertEqual(decoded.event.finished.photos.count, count)
        XCTAssertEqual(decoded, whole, "the pieces decode as the one message")
    }

    func testIndexJSONIsWhatJSONEncoderWritesForTheSamePhotos() throws {
        let out = Repository.temporaryDirectory("compact-index")
        defer { try? FileManager.default.removeItem(at: out) }
        let photos = [
            ("plain", "http://h/plain.jpg"), ("quote\"d \\ back", "http://h/q.jpg?a=1&b=/c"), ("tab\there\nnew\u{1}ctl", "http://h/t.jpg"),
            ("ünïcødé 🎉", "http://h/u.jpg"), ("gone", "http://h/gone.jpg"),
        ]
        let job = Job(id: "job-1", submit: try submit(photos), outputDirectory: out, now: Date())
        job.markDone(0, format: .jpeg, width: 640, height: 480)
        job.markDone(2, format: .png, width: 1, height: 2)
        job.markDone(3, format: .jpeg, width: 3, height: 4)
        job.markFailed(1, stage: "filter:sepia", reason: "it said \"no\"\tthen \\ stopped")
        job.markCancelled(4, reason: "cancelled by the client")
        let descriptor = open(out.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(descriptor, 0, "the output directory opens")
        try JobIndex.write(job, in: JobDirectory(path: out, descriptor: descriptor))

        XCTAssertEqual(
            String(decoding: try Data(contentsOf: out.appendingPathComponent("index.json")), as: UTF8.self),
            String(decoding: try encoderIndex(of: job), as: UTF8.self))
    }

    /// index.json as `JSONEncoder` made it before it was written piece by piece.
    private func encoderIndex(of job: Job) throws -> Data {
        struct Entry: Encodable {
            let index: UInt32
            let name: String
            let url: String
            let state: String
            let stage: String?
            let reason: String?
            let path: String?
            let width: UInt32?
            let height: UInt32?
        }
        struct Index: Encodable {
            let job: String
            let label: String
            let photos: [Entry]
        }
        let index = Index(job: job.id, label: job.label, photos: job.photos.map { photo in
            let done = photo.state == .done
            return Entry(
                index: photo.index, name: job.name(of: photo.index), url: job.url(of: photo.index), state: photo.state.rawValue,
                stage: photo.failedStage.isEmpty ? nil : photo.failedStage, reason: photo.reason.isEmpty ? nil : photo.reason,
                path: done ? job.outputPath(of: photo) : nil, width: done ? photo.width : nil, height: done ? photo.height : nil)
        })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(index)
    }
}
