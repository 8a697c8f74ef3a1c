import Foundation
import PhotoClusterCore
import PhotoClusterPlugins

/// The filters this process can run: the built-ins plus plugins from the default plugin
/// directory and from `--plugins`.
enum FilterCatalog {
    static func load(pluginDirectory: String?) -> (registry: FilterRegistry, report: PluginLoadReport) {
        var registry = FilterRegistry.builtIn
        var report = PluginLoader.load(directory: PluginLoader.defaultDirectory, into: &registry)
        if let pluginDirectory {
            let url = URL(fileURLWithPath: pluginDirectory, isDirectory: true).standardizedFileURL
            if url != PluginLoader.defaultDirectory.standardizedFileURL {
                report.append(PluginLoader.load(directory: url, into: &registry))
            }
        }
        return (registry, report)
    }

    /// Logs every refused plugin, saying what to do about it.
    static func logRefusals(_ report: PluginLoadReport, prefix: String) {
        for refusal in report.refused {
            Terminal.error("\(prefix): plugin refused: \(refusal) (the other filters are available; fix or remove the file)")
        }
    }
}
