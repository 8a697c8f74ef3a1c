import Foundation
import PhotoClusterCore
import PhotoClusterPlugins
import PhotoClusterTestSupport
import XCTest

/// Plugins, or single filters, that must be refused with a clear reason while the rest load.
final class PluginRefusalTests: XCTestCase {
    var directory: URL!

    override func setUp() {
        directory = Repository.temporaryDirectory("plugins")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    func load(_ file: URL, into registry: inout FilterRegistry) -> PluginLoadReport {
        PluginLoader.load(file: file, into: &registry)
    }

    func testBadPluginsAreRefusedWhileTheGoodOnesLoad() throws {
        try Data("garbage, not an ELF file".utf8).write(to: directory.appendingPathComponent("bad.so"))
        try TestPlugins.build("future", """
            static const pc_filter_def filters[] = {{"future", "1", NULL, NULL, 0, keep}};
            static const pc_plugin plugin = {2, "future", filters, 1};
            const pc_plugin *photocluster_plugin_entry(void) { return &plugin; }
            """, into: directory)
        try TestPlugins.build("impostor", """
            static const pc_filter_def filters[] = {
                {"sepia", "9", "another sepia", NULL, 0, keep},
                {"impostor-tone", "1", "fewer colours", NULL, 0, keep},
            };
            static const pc_plugin plugin = {PC_PLUGIN_ABI_VERSION, "impostor", filters, 2};
            const pc_plugin *photocluster_plugin_entry(void) { return &plugin; }
            """, into: directory)
        try BuiltPlugins.copy(into: directory)

        var registry = FilterRegistry([SepiaFilter()])
        let report = PluginLoader.load(directory: directory, into: &registry)

        let file = { (name: String) in self.directory.appendingPathComponent(name).path }
        XCTAssertEqual(report.refused.map(\.file), [file("bad.so"), file("future.so"), file("impostor.so")])
        XCTAssertTrue(report.refused[0].reason.hasPrefix("dlopen failed: "), report.refused[0].reason)
        XCTAssertTrue(report.refused[0].reason.contains("bad.so"), report.refused[0].reason)
        XCTAssertEqual(report.refused[1].reason, "ABI version 2, this worker speaks 1")
        XCTAssertEqual(report.refused[2].reason, "filter name \"sepia\" already exists (built-in)")
        XCTAssertEqual(report.refused[2].description, "\(file("impostor.so")): filter name \"sepia\" already exists (built-in)")

        XCTAssertEqual(report.loaded.map(\.name), ["impostor-tone", "invert", "threshold", "channel-swap"])
        XCTAssertEqual(registry.names, ["channel-swap", "impostor-tone", "invert", "sepia", "threshold"])
        XCTAssertEqual(registry.stages["sepia"]?.descriptor.origin, "built-in", "the built-in sepia stays")
    }

    func testTheSamePluginLoadedTwiceIsRefusedTheSecondTime() throws {
        let plugin = try BuiltPlugins.copy([BuiltPlugins.cProduct], into: directory)[BuiltPlugins.cProduct]!
        var registry = FilterRegistry([SepiaFilter()])
        XCTAssertEqual(load(plugin, into: &registry).loaded.map(\.name), ["invert", "threshold"])

        let again = load(plugin, into: &registry)
        XCTAssertEqual(again.loaded, [])
        XCTAssertEqual(again.refused, [
            PluginRefusal(file: plugin.path, reason: "filter name \"invert\" already exists (\(plugin.path))"),
            PluginRefusal(file: plugin.path, reason: "filter name \"threshold\" already exists (\(plugin.path))"),
        ])
    }

    func testAFilterNameTakenByAnotherPluginIsRefused() throws {
        try BuiltPlugins.copy([BuiltPlugins.cProduct], into: directory)
        let other = Repository.temporaryDirectory("plugins-other")
        defer { try? FileManager.default.removeItem(at: other) }
        let copy = try TestPlugins.build("negative", """
            static const pc_filter_def filters[] = {{"invert", "2", NULL, NULL, 0, keep}};
            static const pc_plugin plugin = {PC_PLUGIN_ABI_VERSION, "negative", filters, 1};
            const pc_plugin *photocluster_plugin_entry(void) { return &plugin; }
            """, into: other)

        var registry = FilterRegistry()
        _ = PluginLoader.load(directory: directory, into: &registry)
        let report = load(copy, into: &registry)
        let first = directory.appendingPathComponent("lib\(BuiltPlugins.cProduct).so").path
        XCTAssertEqual(report.refused.map(\.reason), ["filter name \"invert\" already exists (\(first))"])
        XCTAssertEqual(registry.stages["invert"]?.descriptor.version, "1")
    }

    func testAPluginWithoutTheEntrySymbolIsRefused() throws {
        let plugin = try TestPlugins.build("no-entry", "int something_else(void) { return 1; }\n", into: directory)
        var registry = FilterRegistry()
        XCTAssertEqual(load(plugin, into: &registry).refused.map(\.reason), ["no photocluster_plugin_entry symbol"])
    }

    func testAnEntryReturningNullIsRefused() throws {
        let plugin = try TestPlugins.build("null", "const pc_plugin *photocluster_plugin_entry(void) { return NULL; }\n", into: directory)
        var registry = FilterRegistry()
        XCTAssertEqual(load(plugin, into: &registry).refused.map(\.reason), ["photocluster_plugin_entry returned NULL"])
    }

    func testMalformedPluginTablesAreRefusedWhole() throws {
        let cases: [(name: String, table: String, reason: String)] = [
            ("no-name", "{PC_PLUGIN_ABI_VERSION, NULL, filters, 1}", "plugin_name is missing"),
            ("empty-name", "{PC_PLUGIN_ABI_VERSION, \"\", filters, 1}", "plugin_name is missing"),
            ("no-filters", "{PC_PLUGIN_ABI_VERSION, \"x\", NULL, 0}", "expected 1-256 filters, got filter_count 0 and filters NULL"),
            ("null-filters", "{PC_PLUGIN_ABI_VERSION, \"x\", NULL, 1}", "expected 1-256 filters, got filter_count 1 and filters NULL"),
            ("huge-count", "{PC_PLUGIN_ABI_VERSION, \"x\", filters, 100000}", "expected 1-256 filters, got filter_count 100000 and filters set"),
            ("old-abi", "{0, \"x\", filters, 1}", "ABI version 0, this worker speaks 1"),
        ]
        for test in cases {
            let plugin = try TestPlugins.build(test.name, """
                static const pc_filter_def filters[] = {{"fine", "1", NULL, NULL, 0, keep}};
                static const pc_plugin plugin = \(test.table);
                const pc_plugin *photocluster_plugin_entry(void) { return &plugin; }
                """, into: directory)
            var registry = FilterRegistry()
            let report = load(plugin, into: &registry)
            XCTAssertEqual(report.refused.map(\.reason), [test.reason], test.name)
            XCTAssertEqual(report.loaded, [], test.name)
            XCTAssertEqual(registry.names, [], test.name)
        }
    }

    func testMalformedFiltersAreRefusedOneByOne() throws {
        let plugin = try TestPlugins.build("sloppy", """
            static const pc_param_schema bad_kind[] = {{"x", 7, 0, 1, 0, NULL}};
            static const pc_param_schema bad_bool[] = {{"on", PC_PARAM_BOOL, 0, 2, 0, NULL}};
            static const pc_param_schema bad_int[] = {{"n", PC_PARAM_INT, 0, 10, 2.5, NULL}};
            static const pc_param_schema bad_range[] = {{"amount", PC_PARAM_DOUBLE, 1, 0, 0.5, NULL}};
            static const pc_param_schema bad_key[] = {{"a=b", PC_PARAM_DOUBLE, 0, 1, 0, NULL}};
            static const pc_param_schema twice[] = {{"k", PC_PARAM_DOUBLE, 0, 1, 0, NULL}, {"k", PC_PARAM_DOUBLE, 0, 1, 0, NULL}};
            static const pc_param_schema fine[] = {{"level", PC_PARAM_INT, -5, 10, 5, "a level"}};
            static const char not_utf8[] = {'b', (char)0xff, 0};
            static const pc_filter_def filters[] = {
                {"Bad Name", "1", NULL, NULL, 0, keep},
                {NULL, "1", NULL, NULL, 0, keep},
                {not_utf8, "1", NULL, NULL, 0, keep},
                {"no-function", "1", NULL, NULL, 0, NULL},
                {"no-version", NULL, NULL, NULL, 0, keep},
                {"bad-kind", "1", NULL, bad_kind, 1, keep},
                {"bad-bool", "1", NULL, bad_bool, 1, keep},
                {"bad-int", "1", NULL, bad_int, 1, keep},
                {"bad-range", "1", NULL, bad_range, 1, keep},
                {"bad-key", "1", NULL, bad_key, 1, keep},
                {"twice", "1", NULL, twice, 2, keep},
                {"too-many", "1", NULL, fine, 1000, keep},
                {"negative", "1", NULL, fine, -1, keep},
                {"no-params", "1", NULL, NULL, 1, keep},
                {"fine", "3", "the one that loads", fine, 1, keep},
            };
            static const pc_plugin plugin = {PC_PLUGIN_ABI_VERSION, "sloppy", filters, 15};
            const pc_plugin *photocluster_plugin_entry(void) { return &plugin; }
            """, into: directory)
        var registry = FilterRegistry()
        let report = load(plugin, into: &registry)
        let name = "must be 1-64 characters of a-z 0-9 _ -"
        XCTAssertEqual(report.refused.map(\.reason), [
            "filter #1 name \"Bad Name\" \(name)",
            "filter #2 name \"\" \(name)",
            "filter #3 name is not UTF-8",
            "filter \"no-function\": apply is NULL",
            "filter \"no-version\": version is missing",
            "filter \"bad-kind\": parameter \"x\": kind 7 is not PC_PARAM_DOUBLE, PC_PARAM_INT or PC_PARAM_BOOL",
            "filter \"bad-bool\": parameter \"on\": a bool parameter needs min 0, max 1 and default 0 or 1",
            "filter \"bad-int\": parameter \"n\": an int parameter needs whole-number min, max and default",
            "filter \"bad-range\": parameter \"amount\": needs finite min <= default <= max, got min 1.0, max 0.0, default 0.5",
            "filter \"bad-key\": parameter #1 key \"a=b\" \(name)",
            "filter \"twice\": parameter \"k\" is declared twice",
            "filter \"too-many\": param_count 1000 is not in 0-64",
            "filter \"negative\": param_count -1 is not in 0-64",
            "filter \"no-params\": params is NULL but param_count is 1",
        ])
        XCTAssertEqual(report.loaded, [
            FilterDescriptor(
                name: "fine", version: "3", summary: "the one that loads",
                parameters: [FilterParameter(key: "level", kind: .int, range: -5...10, defaultValue: 5, summary: "a level")],
                origin: plugin.path
            )
        ])
    }
}
