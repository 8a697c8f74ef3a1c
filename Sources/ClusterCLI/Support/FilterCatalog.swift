import Foundation
import PhotoClusterCore
import PhotoClusterPluginHost
import PhotoClusterPlugins

/// The filters this process can run: the built-ins plus plugins from the default plugin
/// directory and from `--plugins`. Plugins are loaded, and run, in plugin hosts: child
/// processes of this one (`cluster plugin-host`), so a plugin that crashes while it loads or
/// filters takes down only its host.
enum FilterCatalog {
    /// `hosts`: idle plugin hosts kept for the next photos (a worker's concurrency). Shut the
    /// returned pool down when done with the registry.
    static func load(pluginDirectory: String?, hosts: Int = 1) -> (registry: FilterRegistry, report: PluginLoadReport, pool: PluginHostPool?) {
        var directories = [PluginLoader.defaultDirectory]
        if let pluginDirectory {
            let url = URL(fileURLWithPath: pluginDirectory, isDirectory: true).standardizedFileURL
            if url != PluginLoader.defaultDirectory.standardizedFileURL { directories.append(url) }
        }
        // The running binary, even if the file on disk has been replaced since: a host must
        // speak exactly this worker's protocol.
        let settings = PluginHostPool.Settings(executable: "/proc/self/exe", keepIdle: hosts)
        let loaded = PluginCatalog.load(directories: directories, settings: settings)
        return (loaded.registry, loaded.report, loaded.pool)
    }

    /// Logs every refused plugin, saying what to do about it.
    static func logRefusals(_ report: PluginLoadReport, prefix: String) {
        for refusal in report.refused {
            Terminal.error("\(prefix): plugin refused: \(refusal) (the other filters are available; fix or remove the file)")
        }
    }
}
