import Foundation
import PhotoClusterCore
import PhotoClusterPlugins

/// The filters a process can run: the built-ins, in the process, and the plugins found in the
/// plugin directories, loaded and run in plugin hosts.
public enum PluginCatalog {
    /// Lists `directories` (in order, `*.so` by name) and loads what they hold in a plugin host.
    /// The registry's plugin filters run in the returned pool's hosts; shut the pool down when
    /// the registry is no longer used. No plugin files: no pool, no host process.
    public static func load(
        directories: [URL], settings: PluginHostPool.Settings
    ) -> (registry: FilterRegistry, pool: PluginHostPool?, report: PluginLoadReport) {
        var registry = FilterRegistry.builtIn
        var report = PluginLoadReport()
        var files: [String] = []
        for directory in directories {
            let listed = PluginLoader.files(in: directory)
            report.refused += listed.refused
            files += listed.files.map(\.path)
        }
        guard !files.isEmpty else { return (registry, nil, report) }
        let started = PluginHostPool.start(files: files, settings: settings)
        report.append(started.report)
        for stage in started.stages {
            // The host checked the names against the built-ins and each other.
            try? registry.register(stage)
        }
        return (registry, started.pool, report)
    }
}
