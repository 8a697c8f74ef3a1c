import Foundation
import PhotoClusterCore
import PhotoClusterPluginHost
import PhotoClusterPlugins
import PhotoClusterTestSupport
import XCTest

/// Plugins that crash, abort or corrupt their heap take down their plugin host, never the
/// process that asked: the photo fails with a reason naming the filter, the plugin and the
/// signal, and the next photo runs in a fresh host.
final class PluginCrashTests: XCTestCase {
    private var plugins: HostedPlugins!

    override func setUpWithError() throws {
        plugins = try HostedPlugins([("poison", FaultyPluginSources.poison), ("slow", FaultyPluginSources.slow)])
        XCTAssertEqual(plugins.report.refused, [])
    }

    override func tearDown() {
        plugins = nil
    }

    func testAPluginFilterRunsOutsideThisProcessAndGivesItsResult() throws {
        let image = Pixels.varied(width: 21, height: 9)
        let output = try plugins.run("poison:width=5,amount=20", on: image)
        let expected = Pixels.bytes(image).enumerated().map { index, byte in index % 4 == 0 ? UInt8(min(255, Int(byte) + 20)) : byte }
        XCTAssertEqual(Pixels.bytes(output), expected)
        XCTAssertNotEqual(Pixels.bytes(image), expected, "the input is left as it was")
        let maps = try procFile("/proc/self/maps")
        XCTAssertFalse(maps.contains("poison.so"), "the plugin's library is never mapped here")
        let host = try XCTUnwrap(plugins.pool?.idlePIDs.first)
        XCTAssertNotEqual(host, getpid())
        let hostMaps = try procFile("/proc/\(host)/maps")
        XCTAssertTrue(hostMaps.contains("poison.so"), "the host has it")
        XCTAssertEqual(plugins.pool?.idlePIDs, [host], "and keeps it for the next photo")
    }

    func testASegfaultFailsThatPhotoNamingFilterPluginAndSignal() throws {
        try assertCrash("poison:width=21", "filter poison (plugin poison.so) crashed: SIGSEGV")
    }

    func testAnAbortFailsThatPhotoNamingTheSignal() throws {
        try assertCrash("abort:width=21", "filter abort (plugin poison.so) crashed: SIGABRT")
    }

    func testAHeapCorruptedByAPluginCostsOnlyItsHost() throws {
        try assertCrash("double-free:width=21", "filter double-free (plugin poison.so) crashed: SIGABRT")
    }

    /// A plugin that leaks until the kernel's OOM killer ends its host costs that photo only. The
    /// memory is taken for real; the SIGKILL is sent by the test, as the OOM killer would send it
    /// to the largest process, which this host then is.
    func testAPluginKilledForItsMemoryFailsThatPhotoOnly() throws {
        let plugins = self.plugins!
        let result = LockedBox<Result<RGBAImage, Error>?>(nil)
        Thread {
            let outcome = Result { try plugins.run("hog:mb=300", on: Pixels.varied(width: 8, height: 8)) }
            result.withLock { $0 = outcome }
        }.start()
        var host: pid_t?
        XCTAssertTrue(eventually(timeout: 20) {
            host = childProcesses().first { residentMegabytes($0) > 250 }
            return host != nil
        }, "the host's memory grew")
        kill(try XCTUnwrap(host), SIGKILL)
        XCTAssertTrue(eventually(timeout: 10) { result.current != nil })
        XCTAssertThrowsError(try XCTUnwrap(result.current).get()) { error in
            XCTAssertEqual("\(error)", "filter hog (plugin slow.so) crashed: SIGKILL")
        }
        XCTAssertEqual(try plugins.run("double", on: Pixels.varied(width: 3, height: 2)).width, 6, "the next photo runs")
    }

    /// The crash names the filter that was running, not the first of the chain.
    func testACrashInAChainNamesTheFilterThatCrashed() throws {
        XCTAssertThrowsError(try plugins.runChain(["double", "poison:width=42"], on: Pixels.varied(width: 21, height: 9))) { error in
            XCTAssertEqual("\(error)", "filter poison (plugin poison.so) crashed: SIGSEGV")
        }
    }

    /// Another photo running in another host at the time of a crash is not touched by it.
    func testAPhotoBesideACrashFinishes() throws {
        let innocent = Pixels.varied(width: 300, height: 200, seed: 7)
        let result = LockedBox<Result<RGBAImage, Error>?>(nil)
        let plugins = self.plugins!
        let thread = Thread {
            let outcome = Result { try plugins.runChain(["double", "nap:ms=1000"], on: innocent) }
            result.withLock { $0 = outcome }
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertThrowsError(try plugins.run("poison:width=21", on: Pixels.varied(width: 21, height: 9)))
        XCTAssertTrue(eventually(timeout: 10) { result.current != nil })
        let output = try XCTUnwrap(result.current).get()
        XCTAssertEqual([output.width, output.height], [600, 200])
        XCTAssertTrue(output[599, 199] == innocent[299, 199])
    }

    private func assertCrash(_ spec: String, _ reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        _ = try plugins.run("poison:width=5", on: Pixels.varied(width: 21, height: 9))
        let before = try XCTUnwrap(plugins.pool?.idlePIDs.first, file: file, line: line)
        XCTAssertThrowsError(try plugins.run(spec, on: Pixels.varied(width: 21, height: 9)), file: file, line: line) { error in
            XCTAssertEqual((error as? PluginHostFailure)?.description, reason, file: file, line: line)
            XCTAssertEqual((error as? PluginHostFailure)?.isTransient, false, "a crash is not tried again", file: file, line: line)
        }
        XCTAssertFalse(processExists(before), "the crashed host was reaped", file: file, line: line)
        // The next photo gets a fresh host and goes through.
        let output = try plugins.run("poison:width=5,amount=1", on: Pixels.varied(width: 30, height: 4))
        XCTAssertEqual(output.width, 30, file: file, line: line)
        let after = try XCTUnwrap(plugins.pool?.idlePIDs.first, file: file, line: line)
        XCTAssertNotEqual(after, before, file: file, line: line)
    }
}
