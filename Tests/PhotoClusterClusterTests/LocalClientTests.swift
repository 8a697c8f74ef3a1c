import Foundation
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterCoordinator

/// Clients inside the coordinator's process (the HTTP API): a token's principal does what a
/// client key does, by the same rules; a watch hears every photo with its settled place, which
/// the journal keeps across a restart.
final class LocalClientTests: XCTestCase {
    private var context: ZMQContext!
    private var coordinator: CoordinatorNode?
    private var workers: [ScriptedWorker] = []
    private var state: URL!
    private var out: URL!

    override func setUpWithError() throws {
        context = try ZMQContext()
        state = Repository.temporaryDirectory("local-client-state")
        out = Repository.temporaryDirectory("local-client-out")
    }

    override func tearDown() {
        stop()
        context?.terminate()
        for directory in [state, out].compactMap({ $0 }) { try? FileManager.default.removeItem(at: directory) }
    }

    private func start(curve: CurveServerSettings? = nil) throws -> CoordinatorNode {
        let coordinator = CoordinatorNode(
            configuration: CoordinatorConfiguration(
                workerEndpoint: "tcp://127.0.0.1:*", clientEndpoint: "tcp://127.0.0.1:*", stateDirectory: state, curve: curve),
            context: context)
        try coordinator.start()
        self.coordinator = coordinator
        return coordinator
    }

    private func stop() {
        for worker in workers { worker.close() }
        workers = []
        coordinator?.stop()
        coordinator = nil
    }

    private func submit(_ names: [String], as requester: LocalRequester, on coordinator: CoordinatorNode) async throws -> Photocluster_V1_CoordinatorToClient.OneOf_Body? {
        let submit = try ClusterHarness.submit(names.map { ($0, "http://127.0.0.1:9/\($0).jpg") }, out: out, format: .jpeg)
        return await coordinator.request(.submit(submit), from: requester).body
    }

    /// The photos a watch hears, in order, until `count` have settled.
    private func settled(_ stream: AsyncStream<Data>, count: Int) async -> (status: Photocluster_V1_StatusReply?, photos: [Photocluster_V1_PhotoStatus]) {
        var status: Photocluster_V1_StatusReply?
        var photos: [Photocluster_V1_PhotoStatus] = []
        for await data in stream {
            guard let message = Envelope.decode(Photocluster_V1_CoordinatorToClient.self, from: data) else { continue }
            if case .status(let reply)? = message.body, status == nil { status = reply }
            if case .event(let event)? = message.body, case .photo(let photo)? = event.body, photo.settledSequence > 0 { photos.append(photo) }
            if photos.count == count { break }
        }
        return (status, photos)
    }

    func testAWatchHearsEachPhotoWithItsSettledPlaceAndARestartKeepsThem() async throws {
        var coordinator = try start()
        guard case .accepted(let accepted)? = try await submit(["a", "b", "c"], as: .key(nil), on: coordinator) else {
            return XCTFail("the job was not accepted")
        }
        let watch = coordinator.watch(accepted.jobID, from: .key(nil))
        let worker = try ScriptedWorker(id: "w", context: context, coordinator: coordinator)
        workers.append(worker)
        try worker.grant(2)
        let coffee = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
        for _ in 0..<2 {
            try worker.sendResult(of: try XCTUnwrap(worker.nextAssignment()), encoded: coffee)
        }
        let heard = await settled(watch, count: 2)
        XCTAssertEqual(heard.status?.jobs.first?.jobID, accepted.jobID, "a watch's first answer is the job's status")
        XCTAssertEqual(heard.photos.map(\.settledSequence), [1, 2], "photos settle in places 1, 2, …")
        XCTAssertEqual(Set(heard.photos.map(\.state)), [.done])
        let names = heard.photos.map(\.name)
        stop()

        coordinator = try start()
        let reply = await coordinator.request(.status(.with { $0.jobID = accepted.jobID }), from: .key(nil))
        guard case .status(let status)? = reply.body, let job = status.jobs.first else { return XCTFail("no status after the restart: \(reply)") }
        let places = Dictionary(uniqueKeysWithValues: job.photos.map { ($0.name, $0.settledSequence) })
        XCTAssertEqual(names.map { places[$0] }, [1, 2], "the restarted coordinator lost the settled places")
        XCTAssertEqual(job.photos.filter { !names.contains($0.name) }.map(\.settledSequence), [0])

        let rewatch = coordinator.watch(accepted.jobID, from: .key(nil))
        let restarted = try ScriptedWorker(id: "w2", context: context, coordinator: coordinator)
        workers.append(restarted)
        try restarted.grant(1)
        try restarted.sendResult(of: try XCTUnwrap(restarted.nextAssignment()), encoded: coffee)
        let last = await settled(rewatch, count: 1)
        XCTAssertEqual(last.photos.map(\.settledSequence), [3], "the place after a restart goes on from the journal's")
    }

    func testATokensPrincipalActsAsAClientKeyOfItsRole() async throws {
        let directory = Repository.temporaryDirectory("local-client-keys")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("authorized")
        let tokens = TokenFile(file)
        let alice = try tokens.create(name: "alice", role: .client, comment: nil)
        let bob = try tokens.create(name: "bob", role: .client, comment: nil)
        let ops = try tokens.create(name: "ops", role: .admin, comment: nil)
        let coordinator = try start(curve: CurveServerSettings(keys: try CurveKeyPair.generate(), authorized: try AuthorizedKeys(contentsOf: file)))

        XCTAssertEqual(coordinator.tokenHolder(of: alice), TokenHolder(principal: "token:alice", name: "alice", isAdmin: false))
        XCTAssertEqual(coordinator.tokenHolder(of: ops)?.isAdmin, true)
        XCTAssertNil(coordinator.tokenHolder(of: alice + "x"))
        let (alicePrincipal, bobPrincipal, opsPrincipal) = try (
            XCTUnwrap(coordinator.tokenHolder(of: alice)?.principal), XCTUnwrap(coordinator.tokenHolder(of: bob)?.principal),
            XCTUnwrap(coordinator.tokenHolder(of: ops)?.principal))

        guard case .accepted(let accepted)? = try await submit(["a"], as: .key(alicePrincipal), on: coordinator) else {
            return XCTFail("alice's job was not accepted")
        }
        let status = Photocluster_V1_ClientToCoordinator.OneOf_Body.status(.with { $0.jobID = accepted.jobID })
        guard case .error(let refusal)? = await coordinator.request(status, from: .key(bobPrincipal)).body else {
            return XCTFail("bob's token read alice's job")
        }
        XCTAssertEqual(refusal.refusal, .notPermitted)
        guard case .error(let cancelRefusal)? = await coordinator.request(.cancel(.with { $0.jobID = accepted.jobID }), from: .key(bobPrincipal)).body else {
            return XCTFail("bob's token cancelled alice's job")
        }
        XCTAssertEqual(cancelRefusal.refusal, .notPermitted)
        guard case .status(let listed)? = await coordinator.request(.status(.init()), from: .key(bobPrincipal)).body else { return XCTFail("no list") }
        XCTAssertFalse(listed.jobs.contains { $0.jobID == accepted.jobID }, "bob's list shows alice's job")
        for requester in [LocalRequester.key(alicePrincipal), .key(opsPrincipal), .operator] {
            guard case .status(let reply)? = await coordinator.request(status, from: requester).body else { return XCTFail("\(requester) cannot read the job") }
            XCTAssertEqual(reply.jobs.first?.jobID, accepted.jobID)
        }
        // One photo by name, as an output's download looks it up: by the same rule.
        guard case .found(let photo) = await coordinator.photoStatus(of: accepted.jobID, named: "a", from: .key(alicePrincipal)) else {
            return XCTFail("alice cannot look up her photo")
        }
        XCTAssertEqual(photo.name, "a")
        guard case .refused(let foreign) = await coordinator.photoStatus(of: accepted.jobID, named: "a", from: .key(bobPrincipal)),
              case .refused(let unnamed) = await coordinator.photoStatus(of: accepted.jobID, named: "b", from: .key(alicePrincipal)) else {
            return XCTFail("a lookup that should be refused was not")
        }
        XCTAssertEqual(foreign.refusal, .notPermitted)
        XCTAssertEqual(unnamed.refusal, .noSuchJob)
        XCTAssertTrue(unnamed.message.contains("no photo named \"b\""), unnamed.message)

        // The operator (the dashboard's token) writes a directory of its own: every key's are taken.
        let aliceOut = out!
        defer { try? FileManager.default.removeItem(at: aliceOut) }
        out = Repository.temporaryDirectory("local-client-operator-out")
        guard case .accepted? = try await submit(["z"], as: .operator, on: coordinator) else {
            return XCTFail("the operator's job was not accepted")
        }
        guard case .error(let missing)? = await coordinator.request(.cancel(.with { $0.jobID = "job-none" }), from: .operator).body else {
            return XCTFail("cancelling no job was not refused")
        }
        XCTAssertEqual(missing.refusal, .noSuchJob)

        // Revoked: the token stands for no one, and the streams it had open end.
        let watch = coordinator.watch(accepted.jobID, from: .key(alicePrincipal))
        XCTAssertTrue(try tokens.revoke(name: "alice"))
        coordinator.replaceAuthorizedKeys(try AuthorizedKeys(contentsOf: file))
        var heard = 0
        for await _ in watch { heard += 1 }
        XCTAssertEqual(heard, 1, "a revoked token's watch went on after its status")
        XCTAssertNil(coordinator.tokenHolder(of: alice))
        XCTAssertNotNil(coordinator.tokenHolder(of: bob))
    }
}
