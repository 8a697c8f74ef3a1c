import Foundation
import PhotoClusterCore
import PhotoClusterPluginHost
import PhotoClusterPlugins
import PhotoClusterTestSupport
import XCTest

/// Plugins are loaded in a plugin host: one whose initialiser crashes is refused and the others
/// load; results of another size and chains of several plugin filters come back whole.
final class PluginHostLoadingTests: XCTestCase {
    func testAPluginThatCrashesWhileLoadingIsRefusedAndTheOthersLoad() throws {
        let plugins = try HostedPlugins([("a-crasher", FaultyPluginSources.crashesWhenLoaded), ("slow", FaultyPluginSources.slow)])
        XCTAssertEqual(plugins.report.refused.map(\.reason), ["crashed the plugin host while loading: SIGSEGV"])
        XCTAssertTrue(plugins.report.refused[0].file.hasSuffix("a-crasher.so"))
        XCTAssertEqual(Set(plugins.report.loaded.map(\.name)), ["spin", "patient", "nap", "double", "hog"])
        XCTAssertNil(plugins.registry.stages["never-loaded"])
        XCTAssertEqual(try plugins.run("double", on: Pixels.varied(width: 3, height: 2)).width, 6)
    }

    func testPluginFiltersCarryTheirOriginAndSchema() throws {
        let plugins = try HostedPlugins([("poison", FaultyPluginSources.poison)])
        let poison = try XCTUnwrap(plugins.registry.stages["poison"]?.descriptor)
        XCTAssertTrue(poison.origin.hasSuffix("/poison.so"), poison.origin)
        XCTAssertEqual(poison.parameters.map(\.key), ["width", "amount"])
        XCTAssertEqual(poison.parameters[1].range, 0...255)
        XCTAssertEqual(poison.parameters[1].defaultValue, 10)
        XCTAssertNotNil(plugins.registry.stages["sepia"], "the built-ins stay")
    }

    func testAResultLargerThanTheSharedMemoryComesBackWhole() throws {
        let plugins = try HostedPlugins([("slow", FaultyPluginSources.slow)])
        // 1,000 x 600 in, 2,000 x 600 out: past the first arena's megabyte-rounded size.
        let image = Pixels.varied(width: 1000, height: 600)
        let output = try plugins.run("double", on: image)
        XCTAssertEqual([output.width, output.height], [2000, 600])
        for (x, y) in [(0, 0), (1999, 599), (777, 123)] {
            XCTAssertTrue(output[x, y] == image[x / 2, y], "pixel (\(x), \(y))")
        }
        // And the next, larger still, through the host's new arena.
        let twice = try plugins.runChain(["double", "double"], on: image)
        XCTAssertEqual([twice.width, twice.height], [4000, 600])
        XCTAssertTrue(twice[3999, 599] == image[999, 599])
    }

    func testNoPluginFilesStartNoHost() throws {
        let plugins = try HostedPlugins([])
        XCTAssertNil(plugins.pool)
        XCTAssertEqual(plugins.registry.names, FilterRegistry.builtIn.names)
    }
}
