import ArgumentParser
import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What `submit` and `demo` share: filters, output and cluster shape.
struct JobOptions: ParsableArguments {
    @Option(name: .customLong("filter"), help: ArgumentHelp("A filter to apply, in order; repeat for a chain (NAME or NAME:key=value,…).", valueName: "spec"))
    var filters: [String] = []

    @Option(help: ArgumentHelp("Directory for the filtered photos.", valueName: "dir"))
    var out: String = "out"

    @Option(help: ArgumentHelp("Output format: jpeg or png (default: the input's format).", valueName: "format"))
    var format: String?

    @Option(help: ArgumentHelp("JPEG quality, 1…100.", valueName: "n"))
    var quality: Int = 90

    @Option(help: ArgumentHelp("Local workers in embedded mode (default: number of cores).", valueName: "n"))
    var workers: Int?

    @Option(help: ArgumentHelp("Client endpoint of a running coordinator, e.g. tcp://127.0.0.1:7001 (default: run an embedded cluster).", valueName: "endpoint"))
    var coordinator: String?

    @Flag(help: "Print one JSON object with the outcome instead of human output.")
    var json = false

    func validate() throws {
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100, got \(quality)") }
        if let format, !["jpeg", "jpg", "png"].contains(format.lowercased()) {
            throw ValidationError("--format must be jpeg or png, got \"\(format)\"")
        }
        if let workers, !(1...256).contains(workers) { throw ValidationError("--workers must be between 1 and 256, got \(workers)") }
    }

    var outputFormat: Photocluster_V1_OutputFormat {
        switch format?.lowercased() {
        case "jpeg", "jpg": return .jpeg
        case "png": return .png
        default: return .keep
        }
    }

    /// Resolves every filter spec, so a bad one fails before any work, listing what exists.
    func resolvedFilters(defaultingTo fallback: [String]) throws -> [Photocluster_V1_FilterSpec] {
        try (filters.isEmpty ? fallback : filters).map(Self.resolve)
    }

    static func resolve(_ text: String) throws -> Photocluster_V1_FilterSpec {
        let configured: ConfiguredFilter
        do {
            configured = try FilterRegistry.builtIn.resolve(text)
        } catch let error as FilterSpecError {
            throw CommandFailure.usage(error.description)
        }
        return Photocluster_V1_FilterSpec.with { spec in
            spec.name = configured.name
            spec.params = configured.spec.parameters.map { key, value in
                Photocluster_V1_FilterParam.with { $0.key = key; $0.value = value }
            }
        }
    }

    /// The submit message for a parsed manifest.
    func submitMessage(for manifest: Manifest, label: String, defaultFilters: [String]) throws -> Photocluster_V1_SubmitJob {
        let chain = try resolvedFilters(defaultingTo: defaultFilters)
        let outputDirectory = URL(fileURLWithPath: out, isDirectory: true).standardizedFileURL.path
        var submit = Photocluster_V1_SubmitJob()
        submit.label = label
        submit.filters = chain
        submit.outputDir = outputDirectory
        submit.format = outputFormat
        submit.quality = UInt32(quality)
        submit.photos = try manifest.entries.map { entry in
            var photo = Photocluster_V1_ManifestEntry()
            photo.name = entry.name
            photo.url = entry.url
            photo.filters = try (entry.filters ?? []).map { text in
                do { return try Self.resolve(text) } catch let failure as CommandFailure {
                    throw CommandFailure.usage("\(label): photo \"\(entry.name)\": \(failure.message)")
                }
            }
            return photo
        }
        return submit
    }
}
