import CPhotoClusterPluginABI
import Foundation
import PhotoClusterCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loads filter plugins (shared libraries speaking the C ABI in `photocluster_plugin.h`) into a
/// `FilterRegistry`.
///
/// What is refused, and how much:
/// - the whole plugin, when it cannot be opened, has no `photocluster_plugin_entry`, returns
///   NULL, speaks another ABI version, or its table is malformed (no name, no filters, too many);
/// - one filter, when its definition is malformed (bad name, version, parameter schema, no
///   function) or its name already exists in the registry (a built-in, another plugin's filter,
///   or the same plugin loaded twice). The plugin's other filters still load.
/// Every refusal is reported and loading goes on with the next plugin.
///
/// Loading a plugin runs its initialisers in the loading process: workers (and every `cluster`
/// command) load plugins in a plugin host, a child process (`PhotoClusterPluginHost`), so a
/// plugin that crashes there takes down only the host.
public enum PluginLoader {
    public static let fallbackDirectory = "/usr/local/lib/photocluster/plugins"

    /// The default plugin directory: $PHOTOCLUSTER_PLUGINS if set, else /usr/local/lib/photocluster/plugins.
    public static var defaultDirectory: URL {
        let configured = ProcessInfo.processInfo.environment["PHOTOCLUSTER_PLUGINS"] ?? ""
        return URL(fileURLWithPath: configured.isEmpty ? fallbackDirectory : configured, isDirectory: true)
    }

    /// Loads every `*.so` in `directory`, in name order. A missing directory loads nothing and
    /// refuses nothing; one that cannot be listed is reported as a refusal.
    public static func load(directory: URL, into registry: inout FilterRegistry) -> PluginLoadReport {
        let (files, refused) = files(in: directory)
        var report = PluginLoadReport(refused: refused)
        for file in files {
            report.append(load(file: file, into: &registry))
        }
        return report
    }

    /// The `*.so` files in `directory`, in name order: what `load(directory:into:)` loads. A
    /// missing directory has none; one that cannot be listed is a refusal.
    public static func files(in directory: URL) -> (files: [URL], refused: [PluginRefusal]) {
        let path = directory.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return ([], []) }
        guard isDirectory.boolValue else {
            return ([], [PluginRefusal(file: path, reason: "not a directory")])
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            return ([], [PluginRefusal(file: path, reason: "cannot list the directory: \(error.localizedDescription)")])
        }
        return (names.filter { $0.hasSuffix(".so") }.sorted().map { directory.appendingPathComponent($0) }, [])
    }

    /// Loads one plugin file.
    public static func load(file: URL, into registry: inout FilterRegistry) -> PluginLoadReport {
        let path = file.path
        func refused(_ reason: String) -> PluginLoadReport {
            PluginLoadReport(refused: [PluginRefusal(file: path, reason: reason)])
        }

        // Never closed, even when refused: stages keep function pointers into the library, and
        // unloading a library that registered Swift runtime metadata is unsafe.
        // A path without a slash would make dlopen search the library path instead.
        guard let handle = dlopen(path.contains("/") ? path : "./" + path, RTLD_NOW | RTLD_LOCAL) else {
            return refused("dlopen failed: \(lastDynamicLinkerError())")
        }
        guard let symbol = dlsym(handle, "photocluster_plugin_entry") else {
            return refused("no photocluster_plugin_entry symbol")
        }
        typealias Entry = @convention(c) () -> UnsafePointer<pc_plugin>?
        guard let plugin = unsafeBitCast(symbol, to: Entry.self)() else {
            return refused("photocluster_plugin_entry returned NULL")
        }
        let table: PluginTable
        do throws(PluginTable.Problem) {
            table = try PluginTable(reading: plugin)
        } catch {
            return refused(error.reason)
        }

        var report = PluginLoadReport(refused: table.refusedFilters.map { PluginRefusal(file: path, reason: $0) })
        for filter in table.filters {
            let stage = PluginFilterStage(definition: filter, origin: path)
            let name = stage.descriptor.name
            if let existing = registry.stages[name] {
                report.refused.append(PluginRefusal(file: path, reason: "filter name \"\(name)\" already exists (\(existing.descriptor.origin))"))
                continue
            }
            do {
                try registry.register(stage)
                report.loaded.append(stage.descriptor)
            } catch {
                report.refused.append(PluginRefusal(file: path, reason: "\(error)"))
            }
        }
        return report
    }

    private static func lastDynamicLinkerError() -> String {
        dlerror().map { String(cString: $0) } ?? "unknown error"
    }
}
