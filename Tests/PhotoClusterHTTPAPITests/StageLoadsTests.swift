import PhotoClusterProto
import XCTest

@testable import PhotoClusterHTTPAPI

/// The cluster's queues per stage, summed over the workers once (`StatusReply.stageLoads`) for
/// `cluster top`, the dashboard and `GET /v1/status`.
final class StageLoadsTests: XCTestCase {
    private func worker(_ loads: [(Photocluster_V1_Stage, UInt32, UInt32)]) -> Photocluster_V1_WorkerStatus {
        .with { worker in
            worker.stages = loads.map { stage, queued, running in .with { $0.stage = stage; $0.queued = queued; $0.running = running } }
        }
    }

    private var twoWorkers: Photocluster_V1_StatusReply {
        .with {
            $0.queued = 7
            $0.workers = [
                worker([(.download, 3, 2), (.decode, 1, 1), (.encode, 0, 1)]),
                worker([(.download, 4, 0), (.filter, 2, 1)]),
            ]
        }
    }

    func testQueuedAndRunningAreSummedPerStageOverEveryWorker() {
        let loads = twoWorkers.stageLoads
        XCTAssertEqual(loads[.download]?.queued, 7)
        XCTAssertEqual(loads[.download]?.running, 2)
        XCTAssertEqual(loads[.download]?.total, 9)
        XCTAssertEqual(loads[.decode]?.total, 2)
        XCTAssertEqual(loads[.filter]?.total, 3)
        XCTAssertEqual(loads[.encode]?.total, 1)
        XCTAssertNil(loads[.write], "a stage no worker reported is absent")
        XCTAssertTrue(Photocluster_V1_StatusReply().stageLoads.isEmpty)
    }

    func testTheHTTPStatusCarriesTheSums() {
        let status = APIJSON.status(twoWorkers)
        XCTAssertEqual(status.queued, 7)
        XCTAssertEqual(status.workers, 2)
        XCTAssertEqual(status.stages.download, 9)
        XCTAssertEqual(status.stages.decode, 2)
        XCTAssertEqual(status.stages.filter, 3)
        XCTAssertEqual(status.stages.encode, 1)
    }
}
