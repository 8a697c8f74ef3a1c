import Foundation
import PhotoClusterCore
import PhotoClusterPlugins
import PhotoClusterTestSupport
import XCTest

/// Most tests start from a registry holding sepia alone, so the expected names do not change as
/// built-in filters are added.
final class PluginLoadingTests: XCTestCase {
    var directory: URL!

    override func setUp() {
        directory = Repository.temporaryDirectory("plugins")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    func testBothExamplePluginsLoadWithOriginVersionAndParameters() throws {
        let copies = try BuiltPlugins.copy(into: directory)
        var registry = FilterRegistry([SepiaFilter()])
        let report = PluginLoader.load(directory: directory, into: &registry)

        XCTAssertEqual(report.refused, [])
        let cPath = copies[BuiltPlugins.cProduct]!.path
        let swiftPath = copies[BuiltPlugins.swiftProduct]!.path
        // Files load in name order (…PluginC before …PluginSwift), filters in table order.
        XCTAssertEqual(report.loaded.map(\.name), ["invert", "threshold", "channel-swap"])
        XCTAssertEqual(report.loaded.map(\.origin), [cPath, cPath, swiftPath])
        XCTAssertEqual(registry.names, ["channel-swap", "invert", "sepia", "threshold"])
        XCTAssertEqual(registry.stages["sepia"]?.descriptor.origin, "built-in")

        let invert = try XCTUnwrap(registry.stages["invert"]?.descriptor)
        XCTAssertEqual(invert.version, "1")
        XCTAssertEqual(invert.summary, "photographic negative")
        XCTAssertEqual(invert.parameters, [])

        let threshold = try XCTUnwrap(registry.stages["threshold"]?.descriptor)
        XCTAssertEqual(threshold.parameters.map(\.key), ["level", "fail"])
        XCTAssertEqual(threshold.parameters[0].kind, .int)
        XCTAssertEqual(threshold.parameters[0].range, 0...255)
        XCTAssertEqual(threshold.parameters[0].defaultValue, 128)
        XCTAssertEqual(threshold.parameters[1].kind, .bool)
        XCTAssertEqual(threshold.parameters[1].range, 0...1)
        XCTAssertEqual(threshold.parameters[1].defaultValue, 0)
        XCTAssertFalse(threshold.parameters[0].summary.isEmpty)

        let swap = try XCTUnwrap(registry.stages["channel-swap"]?.descriptor)
        XCTAssertEqual(swap.version, "1")
        XCTAssertEqual(swap.parameters.map(\.key), ["mirror"])
        XCTAssertEqual(swap.parameters[0].kind, .bool)
    }

    func testExamplePluginsLoadAlongsideEveryBuiltIn() throws {
        try BuiltPlugins.copy(into: directory)
        var registry = FilterRegistry.builtIn
        let builtIn = registry.names
        let report = PluginLoader.load(directory: directory, into: &registry)
        XCTAssertEqual(report.refused, [])
        XCTAssertEqual(registry.names, (builtIn + ["channel-swap", "invert", "threshold"]).sorted())
    }

    func testSpecsResolveAgainstPluginSchemas() throws {
        try BuiltPlugins.copy(into: directory)
        var registry = FilterRegistry([SepiaFilter()])
        _ = PluginLoader.load(directory: directory, into: &registry)

        XCTAssertEqual(try registry.resolve("threshold").identifier, "threshold@1(fail=0,level=128)")
        XCTAssertEqual(try registry.resolve("threshold:level=7").parameters["level"], 7)
        XCTAssertThrowsError(try registry.resolve("threshold:level=256"))
        XCTAssertThrowsError(try registry.resolve("threshold:level=1.5"))
        XCTAssertThrowsError(try registry.resolve("channel-swap:mirror=2"))
        XCTAssertThrowsError(try registry.resolve("invert:amount=1"))
    }

    func testOnlySharedLibrariesAreLoaded() throws {
        try BuiltPlugins.copy([BuiltPlugins.cProduct], into: directory)
        try "not a plugin".write(to: directory.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)
        var registry = FilterRegistry()
        let report = PluginLoader.load(directory: directory, into: &registry)
        XCTAssertEqual(report.loaded.map(\.name), ["invert", "threshold"])
        XCTAssertEqual(report.refused, [])
    }

    func testMissingDirectoryIsAnEmptyReport() {
        var registry = FilterRegistry([SepiaFilter()])
        let report = PluginLoader.load(directory: directory.appendingPathComponent("absent"), into: &registry)
        XCTAssertEqual(report.loaded, [])
        XCTAssertEqual(report.refused, [])
        XCTAssertEqual(registry.names, ["sepia"])
    }

    func testAFileGivenAsTheDirectoryIsRefused() throws {
        let file = directory.appendingPathComponent("plugins")
        try "x".write(to: file, atomically: true, encoding: .utf8)
        var registry = FilterRegistry()
        let report = PluginLoader.load(directory: file, into: &registry)
        XCTAssertEqual(report.refused, [PluginRefusal(file: file.path, reason: "not a directory")])
    }

    func testDefaultDirectoryComesFromTheEnvironment() {
        let saved = ProcessInfo.processInfo.environment["PHOTOCLUSTER_PLUGINS"]
        defer {
            if let saved { setenv("PHOTOCLUSTER_PLUGINS", saved, 1) } else { unsetenv("PHOTOCLUSTER_PLUGINS") }
        }
        setenv("PHOTOCLUSTER_PLUGINS", "/opt/filters", 1)
        XCTAssertEqual(PluginLoader.defaultDirectory.path, "/opt/filters")
        unsetenv("PHOTOCLUSTER_PLUGINS")
        XCTAssertEqual(PluginLoader.defaultDirectory.path, "/usr/local/lib/photocluster/plugins")
    }
}
