import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterWorker

/// A worker engine whose stage reports and outcomes the test can read.
final class EngineRun: @unchecked Sendable {
    private(set) var engine: WorkerEngine!
    private let reported = LockedBox<[(attempt: UInt32, stage: Photocluster_V1_Stage)]>([])
    private let outcomes = LockedBox<[UInt32: String]>([:])

    init(filters: FilterRegistry, adding extra: (any FilterStage)? = nil, keepsFinishedDownloads: Bool = true) throws {
        var registry = filters
        if let extra { try registry.register(extra) }
        var configuration = WorkerEngine.Configuration(concurrency: 1, downloadSlots: 2).allowingLoopback()
        configuration.keepsFinishedDownloads = keepsFinishedDownloads
        engine = WorkerEngine(
            configuration: configuration, filters: registry,
            onStage: { [reported] work, stage, _, _, _ in reported.withLock { $0.append((work.graph.attempt, stage)) } },
            onOutcome: { [outcomes] work, outcome in
                let kind: String
                switch outcome {
                case .encoded: kind = "encoded"
                case .cancelled: kind = "cancelled"
                case .failed(_, let stage, let reason, _): kind = "failed \(stage): \(reason)"
                }
                outcomes.withLock { $0[work.graph.attempt] = kind }
            })
    }

    func submit(_ graph: Photocluster_V1_PhotoGraph) { engine.submit(graph) }

    func waitForOutcome(attempt: UInt32) throws -> String {
        XCTAssertTrue(eventually(timeout: 30) { self.outcomes.current[attempt] != nil }, "attempt \(attempt) ended")
        return try XCTUnwrap(outcomes.current[attempt])
    }

    func stages(attempt: UInt32) -> [Photocluster_V1_Stage] {
        reported.current.filter { $0.attempt == attempt }.map(\.stage)
    }
}
