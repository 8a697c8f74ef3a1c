import ArgumentParser
import Foundation
import PhotoClusterCore
import PhotoClusterPlugins

/// `cluster plugins`: every filter this host can run, with its origin, version and parameters.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List every filter (built-in or from a plugin) with its origin, version and parameters.",
        discussion: "Plugins are shared libraries (*.so) loaded from $PHOTOCLUSTER_PLUGINS (default \(PluginLoader.fallbackDirectory)) and from --plugins."
    )

    @Option(help: ArgumentHelp("Another directory of filter plugins.", valueName: "dir"))
    var plugins: String?

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let (registry, report, pool) = FilterCatalog.load(pluginDirectory: plugins)
        pool?.shutdown()
        if json {
            // `choices`: the names an int parameter's values may be written as, from `min` up.
            struct Parameter: Encodable {
                let key, kind: String
                let min, max, defaultValue: Double
                let choices: [String]?
                let defaultChoice: String?
                let summary: String
            }
            struct Filter: Encodable { let name, version, origin, summary: String; let parameters: [Parameter] }
            struct Listing: Encodable { let filters: [Filter]; let refused: [[String: String]] }
            let listing = Listing(
                filters: registry.descriptors.map { d in
                    Filter(name: d.name, version: d.version, origin: d.origin, summary: d.summary, parameters: d.parameters.map {
                        Parameter(
                            key: $0.key, kind: $0.kind.rawValue, min: $0.range.lowerBound, max: $0.range.upperBound, defaultValue: $0.defaultValue,
                            choices: $0.choices.isEmpty ? nil : $0.choices, defaultChoice: $0.choice(for: $0.defaultValue), summary: $0.summary)
                    })
                },
                refused: report.refused.map { ["file": $0.file, "reason": $0.reason] })
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.keyEncodingStrategy = .convertToSnakeCase
            Terminal.write(String(decoding: try encoder.encode(listing), as: UTF8.self) + "\n")
            return
        }
        for d in registry.descriptors {
            Terminal.write("\(d.name)  v\(d.version)  \(d.origin)\n    \(d.summary)\n")
            for p in d.parameters {
                // A parameter with names shows them, as a spec writes them (kernel=lanczos3).
                let kind = p.choices.isEmpty ? "\(p.kind.rawValue), " : "one of "
                let defaultValue = p.choice(for: p.defaultValue) ?? ConfiguredFilter.format(p.defaultValue)
                Terminal.write("    \(p.key) (\(kind)\(p.acceptedValues), default \(defaultValue)): \(p.summary)\n")
            }
        }
        FilterCatalog.logRefusals(report, prefix: "plugins")
    }
}
