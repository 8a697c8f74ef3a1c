import Foundation
import PhotoClusterCore
import PhotoClusterPluginHost
import PhotoClusterPlugins
import PhotoClusterTestSupport
import XCTest

/// A plugin filter that runs past its time limit, or on after its photo was cancelled, has its
/// host killed after a short grace; one that stops when asked keeps its host.
final class PluginTimeLimitTests: XCTestCase {
    private var plugins: HostedPlugins!

    override func setUpWithError() throws {
        plugins = try HostedPlugins([("slow", FaultyPluginSources.slow)], cancelGrace: 0.3)
    }

    override func tearDown() {
        plugins = nil
    }

    func testAFilterThatIgnoresACancelHasItsHostKilled() throws {
        _ = try plugins.run("double", on: Pixels.varied(width: 4, height: 4))
        let host = try XCTUnwrap(plugins.pool?.idlePIDs.first)
        let started = Date()
        XCTAssertThrowsError(try plugins.run("spin", on: Pixels.varied(width: 4, height: 4)) { Date().timeIntervalSince(started) > 0.2 }) { error in
            XCTAssertEqual(
                (error as? PluginHostFailure)?.description,
                "filter spin (plugin slow.so) ran on 0.3 s after its photo was cancelled; its plugin host was killed")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "killed soon after the grace")
        XCTAssertFalse(processExists(host), "the spinning host is gone")
    }

    func testAFilterPastItsTimeLimitFailsAndItsHostIsKilled() throws {
        let started = Date()
        XCTAssertThrowsError(try plugins.runChain(["double", "spin"], on: Pixels.varied(width: 4, height: 4), limit: 0.3)) { error in
            XCTAssertEqual(
                (error as? PluginHostFailure)?.description,
                "filter spin (plugin slow.so) ran past its time limit of 0.3 s (raise it with `cluster worker --stage-timeout SECONDS`)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        XCTAssertEqual(plugins.pool?.idleCount, 0, "the host was not kept")
    }

    func testAFilterThatStopsWhenAskedKeepsItsHost() throws {
        _ = try plugins.run("double", on: Pixels.varied(width: 4, height: 4))
        let host = try XCTUnwrap(plugins.pool?.idlePIDs.first)
        let started = Date()
        XCTAssertThrowsError(try plugins.run("patient", on: Pixels.varied(width: 4, height: 4)) { Date().timeIntervalSince(started) > 0.2 }) { error in
            XCTAssertTrue(error is FilterCancelled, "\(error)")
        }
        XCTAssertEqual(plugins.pool?.idlePIDs, [host])
    }

    func testAPoliteFilterPastItsLimitFailsAsTimedOut() throws {
        XCTAssertThrowsError(try plugins.runChain(["patient"], on: Pixels.varied(width: 4, height: 4), limit: 0.2)) { error in
            XCTAssertEqual((error as? PluginHostFailure)?.kind, .timedOut(0.2))
        }
        XCTAssertEqual(plugins.pool?.idleCount, 1, "it stopped when asked, so its host stays")
    }
}
