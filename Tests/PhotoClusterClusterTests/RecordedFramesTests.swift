import CZeroMQ
import Foundation
import PhotoClusterProto
import PhotoClusterProtocol
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// Frames recorded from real `cluster` binaries of every protocol version a coordinator accepts
/// (Tests/Frames/protocol-N, made by scripts/record-frames) are still understood, so a cluster
/// upgrades one node at a time; one version older than that, or newer than the coordinator, is
/// refused with a reason that names both versions and the side to upgrade.
final class RecordedFramesTests: XCTestCase {
    private static let accepted = ProtocolVersions.oldestAccepted...ProtocolVersions.current

    private static func frame(_ version: UInt32, _ name: String) throws -> Data {
        try Data(contentsOf: Repository.root.appendingPathComponent("Tests/Frames/protocol-\(version)/\(name).bin"))
    }

    private static func workerMessage(_ version: UInt32, _ name: String) throws -> Photocluster_V1_WorkerToCoordinator {
        try XCTUnwrap(Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frame(version, name)), "protocol-\(version)/\(name).bin parses")
    }

    func testEveryAcceptedVersionsFramesAreRecorded() throws {
        XCTAssertEqual(Self.accepted.count, 2, "a coordinator accepts its own version and the one before")
        for version in Self.accepted {
            let hello = try Self.workerMessage(version, "worker-hello")
            guard case .hello(let body) = hello.body else { return XCTFail("protocol-\(version)/worker-hello.bin is not a hello") }
            XCTAssertEqual(body.protocolVersion, version, "the recording is of the version its folder names")
        }
    }

    /// A recorded worker of each accepted version is welcomed, and its credit and heartbeat
    /// are believed: a photo is sent to it.
    func testAWorkerOfEachAcceptedVersionRegistersAndGetsWork() throws {
        for version in Self.accepted {
            let core = CoreHarness()
            let hello = try Self.workerMessage(version, "worker-hello")
            guard case .hello(let body) = hello.body else { return XCTFail("not a hello") }
            let id = body.workerID
            let welcomed = core.handle(.fromWorker(id: id, key: nil, message: hello, photos: []))
            XCTAssertEqual(CoreHarness.messages(in: welcomed), ["\(id): welcome"], "protocol \(version)")
            XCTAssertNotNil(core.core.workers[id], "protocol \(version): registered")
            core.submit(photos: 1)
            let credited = core.handle(.fromWorker(id: id, key: nil, message: try Self.workerMessage(version, "worker-credit"), photos: []))
            XCTAssertEqual(CoreHarness.graphs(in: credited).map(\.worker), [id], "protocol \(version): its credit brought the photo")
            let beat = core.handle(.fromWorker(id: id, key: nil, message: try Self.workerMessage(version, "worker-heartbeat"), photos: []))
            XCTAssertFalse(CoreHarness.messages(in: beat).contains("\(id): please register"), "protocol \(version): its heartbeat is known")
            XCTAssertNotNil(core.core.workers[id], "protocol \(version): still registered after its heartbeat")
        }
    }

    /// The recorded protocol-1 worker is sent no AVIF job (it would write the input's format):
    /// the job waits, saying why, until the recorded protocol-2 worker joins and takes it.
    func testARecordedProtocol1WorkerIsSentNoPhotoThatNeedsProtocol2() throws {
        let core = CoreHarness()
        let old = try Self.workerMessage(1, "worker-hello")
        guard case .hello(let oldHello) = old.body else { return XCTFail("not a hello") }
        core.handle(.fromWorker(id: oldHello.workerID, key: nil, message: old, photos: []))
        let id = core.submit(files: ["a.jpg"], format: .avif)
        let credited = core.handle(.fromWorker(id: oldHello.workerID, key: nil, message: try Self.workerMessage(1, "worker-credit"), photos: []))
        XCTAssertEqual(CoreHarness.graphs(in: credited).count, 0)
        XCTAssertEqual(CoreHarness.settled(in: credited), [])
        let job = try XCTUnwrap(core.core.jobs[id])
        XCTAssertNotNil(core.core.waitingReason(of: job))

        var new = try Self.workerMessage(2, "worker-hello")
        guard case .hello(var newHello) = new.body else { return XCTFail("not a hello") }
        newHello.workerID = "upgraded"
        new.body = .hello(newHello)
        core.handle(.fromWorker(id: "upgraded", key: nil, message: new, photos: []))
        XCTAssertNil(core.core.waitingReason(of: job))
        let taken = core.handle(.fromWorker(id: "upgraded", key: nil, message: try Self.workerMessage(2, "worker-credit"), photos: []))
        XCTAssertEqual(CoreHarness.graphs(in: taken).map(\.worker), ["upgraded"])
    }

    /// The same through a real coordinator: the status names the recorded worker's protocol and
    /// says why the AVIF job's photo waits.
    func testTheStatusSaysWhyAPhotoWaitsForAProtocol2Worker() async throws {
        let cluster = try ScriptedWorkerCluster(name: "recorded-waiting")
        defer { cluster.stop() }
        let worker = try ZMQSocket(context: cluster.context, kind: .dealer)
        defer { worker.close() }
        try worker.setRoutingID("recorded")
        try worker.connect(cluster.coordinator.boundWorkerEndpoint)
        try worker.send([Self.frame(1, "worker-hello")], dontWait: false)
        XCTAssertTrue(eventually { cluster.coordinator.workerSnapshot().count == 1 }, "the recorded worker registered")
        try worker.send([Self.frame(1, "worker-credit")], dontWait: false)
        let job = try await cluster.client.submit(try ClusterHarness.submit([("a", "http://photos.test/a.jpg")], out: cluster.out, format: .avif))
        let status = try await cluster.client.status(job: job.id)
        XCTAssertEqual(status.workers.map(\.protocolVersion), [1])
        let waiting = try XCTUnwrap(status.jobs.first?.waiting)
        XCTAssertTrue(waiting.hasPrefix("1 photo waits for a worker of protocol 2 or later"), waiting)
        XCTAssertEqual(cluster.coordinator.workerSnapshot().first?.inFlight, 0, "nothing was sent to it")
    }

    func testAWorkerTwoVersionsBackOrAheadOfTheCoordinatorIsRefusedWithTheReason() throws {
        let recorded = try Self.workerMessage(ProtocolVersions.oldestAccepted, "worker-hello")
        for (version, upgrade) in [(ProtocolVersions.oldestAccepted - 1, "upgrade the worker"), (ProtocolVersions.current + 1, "upgrade the coordinator")] {
            var hello = recorded
            guard case .hello(var body) = hello.body else { return XCTFail("not a hello") }
            body.protocolVersion = version
            hello.body = .hello(body)
            let core = CoreHarness()
            let actions = core.handle(.fromWorker(id: body.workerID, key: nil, message: hello, photos: []))
            XCTAssertNil(core.core.workers[body.workerID], "protocol \(version): not registered")
            let refusals = actions.compactMap { action -> Photocluster_V1_ProtocolRefused? in
                guard case .sendToWorker(_, .refused(let refused)) = action else { return nil }
                return refused
            }
            let refused = try XCTUnwrap(refusals.first, "protocol \(version): the worker is told")
            XCTAssertEqual(refused.coordinatorVersion, ProtocolVersions.current)
            XCTAssertEqual(refused.oldestAccepted, ProtocolVersions.oldestAccepted)
            XCTAssertTrue(refused.reason.contains("accepts \(ProtocolVersions.oldestAccepted)–\(ProtocolVersions.current)"), refused.reason)
            XCTAssertTrue(refused.reason.contains(upgrade), refused.reason)
            XCTAssertTrue(actions.contains { if case .refusedProtocol = $0 { return true } else { return false } }, "counted and logged")
            XCTAssertFalse(CoreHarness.messages(in: actions).contains { $0.hasSuffix("welcome") })
        }
    }

    /// Recorded client requests of each accepted version, sent as they were to a real
    /// coordinator: each is answered as asked, none refused; a request of a version it does
    /// not accept is refused with the reason and `REFUSAL_PROTOCOL_VERSION`, and counted.
    func testClientsOfEachAcceptedVersionAreAnsweredAndOthersRefused() throws {
        let cluster = try ScriptedWorkerCluster(name: "recorded-frames")
        defer { cluster.stop() }
        let socket = try ZMQSocket(context: cluster.context, kind: .dealer)
        defer { socket.close() }
        try socket.setOption(ZMQ_RCVTIMEO, Int32(5000))
        try socket.connect(cluster.coordinator.boundClientEndpoint)
        // Each recorded command numbered its requests from 1: each request is sent with a number
        // of its own, and its answer is the reply that carries it (events come in between).
        var nextID: UInt64 = 100
        func answer(to frame: Data) throws -> Photocluster_V1_CoordinatorToClient {
            var request = try XCTUnwrap(Envelope.decode(Photocluster_V1_ClientToCoordinator.self, from: frame))
            nextID += 1
            request.requestID = nextID
            try socket.send([Envelope.encode(request)], dontWait: false)
            while true {
                let frames = try XCTUnwrap(try socket.receive(dontWait: false), "an answer within 5 s")
                let reply = try XCTUnwrap(Envelope.decode(Photocluster_V1_CoordinatorToClient.self, from: frames.last!))
                if reply.requestID == nextID { return reply }
            }
        }
        for version in Self.accepted {
            let status = try answer(to: Self.frame(version, "client-status"))
            guard case .status = status.body else { return XCTFail("protocol \(version): status answered \(status)") }
            var submit = try XCTUnwrap(Envelope.decode(Photocluster_V1_ClientToCoordinator.self, from: Self.frame(version, "client-submit")))
            guard case .submit(var job) = submit.body else { return XCTFail("not a submit") }
            job.outputDir = cluster.out.appendingPathComponent("v\(version)").path
            submit.body = .submit(job)
            let accepted = try answer(to: Envelope.encode(submit))
            guard case .accepted = accepted.body else { return XCTFail("protocol \(version): submit answered \(accepted)") }
        }
        var request = try XCTUnwrap(Envelope.decode(Photocluster_V1_ClientToCoordinator.self, from: Self.frame(ProtocolVersions.current, "client-status")))
        request.protocolVersion = ProtocolVersions.oldestAccepted - 1
        let refused = try answer(to: Envelope.encode(request))
        guard case .error(let error) = refused.body else { return XCTFail("answered \(refused)") }
        XCTAssertEqual(error.refusal, .protocolVersion)
        XCTAssertTrue(error.message.contains("client speaks protocol \(ProtocolVersions.oldestAccepted - 1)"), error.message)
        XCTAssertTrue(error.message.contains("upgrade the client"), error.message)
    }
}
