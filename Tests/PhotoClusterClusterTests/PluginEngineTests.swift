import Foundation
import PhotoClusterCore
import PhotoClusterPluginHost
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterWorker

/// The worker's engine with plugin filters in plugin hosts (the built `cluster` binary):
/// cancels at every moment of a plugin chain still end each graph once and leave no host
/// behind, and a plugin that ignores a cancel is killed and reported.
final class PluginEngineTests: XCTestCase {
    /// Plugins and cancels are tested here, not downloading: photos come from memory.
    private var source: MemoryPhotoSource!
    private var directory: URL!
    private var pool: PluginHostPool?
    private var registry = FilterRegistry.builtIn

    override func setUpWithError() throws {
        let binary = Repository.clusterBinary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("\(binary.path) is missing: `make test` builds it first (swift build --product cluster)")
        }
        guard CPluginCompiler.compiler != nil else { throw XCTSkip("no C compiler (cc) on PATH: the test plugins cannot be built") }
        directory = Repository.temporaryDirectory("engine-plugins")
        try CPluginCompiler.build("slow", FaultyPluginSources.slow, into: directory)
        let loaded = PluginCatalog.load(directories: [directory], settings: .init(executable: binary.path, keepIdle: 2, cancelGrace: 0.3))
        (registry, pool) = (loaded.registry, loaded.pool)
        source = try MemoryPhotoSource()
    }

    override func tearDown() {
        pool?.shutdown()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    private func engine(outcomes: LockedBox<[UInt32: [String]]>, incidents: LockedBox<[String]>) -> WorkerEngine {
        WorkerEngine(
            configuration: .init(concurrency: 2, downloadSlots: 4).allowingLoopback(), filters: registry,
            onStage: { _, _, _, _, _ in },
            onIncident: { _, incident in
                if case .plugin(let failure) = incident { incidents.withLock { $0.append("\(failure)") } }
            },
            source: source,
            onOutcome: { work, outcome in
                let kind: String
                switch outcome {
                case .encoded: kind = "encoded"
                case .failed(_, let stage, let reason, _): kind = "failed \(stage): \(reason)"
                case .cancelled: kind = "cancelled"
                }
                outcomes.withLock { $0[work.graph.photoIndex, default: []].append(kind) }
            })
    }

    private func graph(_ index: UInt32, filters: [String]) throws -> Photocluster_V1_PhotoGraph {
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = "plugins"
        graph.photoIndex = index
        graph.name = "p\(index)"
        graph.url = MemoryPhotoSource.url(of: Repository.samplePhotoFiles[Int(index) % Repository.samplePhotoFiles.count]) + "?\(index)"
        graph.filters = try filters.map { Photocluster_V1_FilterSpec(try FilterSpec(parsing: $0)) }
        graph.attempt = 1
        return graph
    }

    /// This process's plugin hosts: children running `cluster plugin-host`, and whether any is a zombie.
    private func hosts() -> (count: Int, zombies: Int) {
        let me = getpid()
        var count = 0, zombies = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, pid_t(fields[1]) == me, stat.contains("(cluster)") else { continue }
            count += 1
            if fields[0] == "Z" { zombies += 1 }
        }
        return (count, zombies)
    }

    func testEveryPluginPhotoEndsOnceWhateverTheCancelTiming() throws {
        let outcomes = LockedBox<[UInt32: [String]]>([:])
        let incidents = LockedBox<[String]>([])
        let engine = engine(outcomes: outcomes, incidents: incidents)
        defer { engine.shutdown() }
        let count: UInt32 = 24
        for index in 0..<count {
            // Two plugin filters in one hand-off, then a built-in one.
            engine.submit(try graph(index, filters: ["nap:ms=30", "double", "sepia"]))
            switch index % 4 {
            case 0: engine.cancel(job: "plugins", photos: [index])
            case 1: DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(index) * 9)) { engine.cancel(job: "plugins", photos: [index]) }
            default: break
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { engine.cancel(job: "plugins", photos: Set((0..<count).filter { $0 % 4 == 2 })) }

        XCTAssertTrue(eventually(timeout: 60) { outcomes.withLock { $0.count } == Int(count) }, "every graph ended")
        XCTAssertTrue(eventually(timeout: 10) { engine.allDelivered(job: "plugins") }, "the engine still holds the job")
        let final = outcomes.current
        for index in 0..<count {
            XCTAssertEqual(final[index]?.count, 1, "photo \(index) ended \(final[index] ?? [])")
            let outcome = final[index]?.first ?? ""
            XCTAssertTrue(outcome == "encoded" || outcome == "cancelled", "photo \(index): \(outcome)")
            if index % 4 == 3 { XCTAssertEqual(outcome, "encoded", "photo \(index) was never cancelled") }
        }
        XCTAssertEqual(incidents.current, [], "every plugin stopped when asked")
        let (hosts, zombies) = hosts()
        XCTAssertLessThanOrEqual(hosts, 2, "idle hosts kept: at most the concurrency")
        XCTAssertEqual(zombies, 0, "every host that ended was reaped")
    }

    func testAPluginThatIgnoresACancelIsKilledAndThePhotoEndsCancelled() throws {
        let outcomes = LockedBox<[UInt32: [String]]>([:])
        let incidents = LockedBox<[String]>([])
        let engine = engine(outcomes: outcomes, incidents: incidents)
        defer { engine.shutdown() }
        engine.submit(try graph(0, filters: ["spin"]))
        XCTAssertTrue(eventually(timeout: 20) { engine.stageLoads()[.filter]?.running == 1 }, "the plugin runs")
        Thread.sleep(forTimeInterval: 0.2)
        let cancelled = Date()
        engine.cancel(job: "plugins", photos: nil)
        XCTAssertTrue(eventually(timeout: 5) { outcomes.current[0] != nil })
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 2)
        XCTAssertEqual(outcomes.current[0], ["cancelled"])
        XCTAssertEqual(incidents.current, ["filter spin (plugin slow.so) ran on 0.3 s after its photo was cancelled; its plugin host was killed"])
        XCTAssertEqual(hosts().zombies, 0)
    }
}
