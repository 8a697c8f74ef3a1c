import ArgumentParser
import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterStorage
import PhotoClusterTransport
import PhotoClusterWorker

/// What `submit` and `demo` share: filters, output and cluster shape.
struct JobOptions: ParsableArguments {
    @Option(name: .customLong("filter"), help: ArgumentHelp("A filter to apply, in order; repeat for a chain (NAME or NAME:key=value,…).", valueName: "spec"))
    var filters: [String] = []

    @Option(help: ArgumentHelp("Where the filtered photos go: a directory (with --coordinator, on the coordinator's host under its --output-root: relative to that root, or absolute inside it), or s3://BUCKET/PREFIX (the workers upload them with their own credentials; with CURVE the coordinator takes only a prefix the client key is granted). A directory belongs to the client key whose job made it: another client key may not write into it (admin keys may).", valueName: "dir|s3-url"))
    var out: String = "out"

    @Flag(name: .customLong("replace-outputs"), help: "The output directory may hold another job's finished outputs (and its index.json): replace them. Without it such a directory is refused (exit 2) and nothing is written.")
    var replaceOutputs = false

    @Option(name: .customLong("out-shared"), help: ArgumentHelp("A directory of a file system every worker mounts at this path (inside their --shared-root): the workers write the photos there themselves.", valueName: "dir"))
    var outShared: String?

    @Option(help: ArgumentHelp("Output format: jpeg, png, webp or avif (default: the input's format; HEIC, TIFF and JPEG XL become jpeg, GIF png).", valueName: "format"))
    var format: String?

    @Option(help: ArgumentHelp("JPEG, WebP and AVIF quality, 1…100 (for lossless WebP: how hard it compresses).", valueName: "n"))
    var quality: Int = 90

    @Flag(help: "JPEG: decode, and encode at quality 90 or less, with libjpeg-turbo's fast DCT (faster; pixels differ by a few levels).")
    var fastDCT = false

    @Option(help: ArgumentHelp("JPEG chroma subsampling: 444 (full colour resolution: graphics, text), 422 (colour halved across) or 420 (halved both ways: photos) (default: 444 above --quality 90, else 420).", valueName: "444|422|420"))
    var chroma: String?

    @Flag(help: "WebP: lossless instead of lossy (PNG is always lossless).")
    var lossless = false

    @Option(name: .customLong("avif-speed"), help: ArgumentHelp("AVIF: the AV1 encoder's speed, 0 (slowest, smallest files) to 9 (fastest) (default: 6).", valueName: "n"))
    var avifSpeed: Int?

    @Flag(help: "Keep the stored pixels instead of turning photos upright by their EXIF orientation (the output keeps the orientation tag; filter coordinates are then in stored pixels).")
    var noAutoOrient = false

    @Option(name: [.customLong("colour"), .customLong("color")], help: ArgumentHelp("keep: the pixels and ICC profile as they came; srgb: converted to sRGB by the photo's profile (Little CMS), no profile written. CMYK photos are converted to sRGB either way.", valueName: "keep|srgb"))
    var colour: String = "keep"

    @Option(help: ArgumentHelp("What outputs keep of the inputs' EXIF and XMP: strip (none: no GPS positions or serial numbers in published photos), copyright (EXIF Artist and Copyright), keep (all, orientation reset to 1). The ICC profile is kept in every case.", valueName: "policy"))
    var metadata: String = "strip"

    @Option(help: ArgumentHelp("Local workers in embedded mode (default: the cores this process may use: its CPU affinity, capped by a cgroup CPU quota).", valueName: "n"))
    var workers: Int?

    @Option(help: ArgumentHelp(CoordinatorListHelp.submit, valueName: "endpoint[,endpoint…]"))
    var coordinator: String?

    @Option(help: ArgumentHelp("A directory of filter plugins for the embedded workers (and to check specs against).", valueName: "dir"))
    var plugins: String?

    @OptionGroup var security: ClientSecurityOptions

    @Flag(help: "Print one JSON object with the outcome instead of human output.")
    var json = false

    @Option(name: .customLong("give-up-after"), help: ArgumentHelp("With --coordinator: seconds without a word from the coordinator (it died, or its host is unreachable) after which submit stops waiting; the job may go on there. 0 waits for ever.", valueName: "seconds"))
    var giveUpAfter: Double = 300

    /// The endpoints of `--coordinator`, in the order the client tries them; nil without it.
    var coordinatorEndpoints: [String]? {
        coordinator.map { (try? CoordinatorEndpointList.parse($0)) ?? [$0] }
    }

    @Option(help: ArgumentHelp("Viewport mode: only these manifest indices (plus --prefetch) run; the job stays open and its id is printed. Needs --coordinator.", valueName: "A..B"))
    var visible: IndexRange?

    @Option(help: ArgumentHelp("Photos on each side of --visible to prefetch at lower priority.", valueName: "k"))
    var prefetch = 0

    @Flag(help: "With --visible: run every photo (the rest at the lowest priority) and wait for the end.")
    var all = false

    /// The job stays open and follows viewport changes instead of running everything.
    var viewportMode: Bool { visible != nil && !all }

    func validate() throws {
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100, got \(quality)") }
        if let format, !["jpeg", "jpg", "png", "webp", "avif"].contains(format.lowercased()) {
            throw ValidationError("--format must be jpeg, png, webp or avif, got \"\(format)\"")
        }
        if let avifSpeed {
            guard (0...9).contains(avifSpeed) else { throw ValidationError("--avif-speed must be between 0 and 9, got \(avifSpeed)") }
            guard format?.lowercased() == "avif" else { throw ValidationError("--avif-speed is for --format avif") }
        }
        if let chroma {
            guard Self.chromaSubsampling(chroma) != nil else { throw ValidationError("--chroma must be 444, 422 or 420, got \"\(chroma)\"") }
            if let format, !["jpeg", "jpg"].contains(format.lowercased()) {
                throw ValidationError("--chroma is for JPEG output; --format \(format) has no chroma subsampling to choose")
            }
        }
        if lossless && format?.lowercased() != "webp" {
            throw ValidationError("--lossless is for --format webp (PNG is always lossless; JPEG never is)")
        }
        guard ["keep", "srgb"].contains(colour.lowercased()) else {
            throw ValidationError("--colour must be keep or srgb, got \"\(colour)\"")
        }
        guard ["strip", "copyright", "keep"].contains(metadata.lowercased()) else {
            throw ValidationError("--metadata must be strip, copyright or keep, got \"\(metadata)\"")
        }
        if let workers, !(1...256).contains(workers) { throw ValidationError("--workers must be between 1 and 256, got \(workers)") }
        guard prefetch >= 0 else { throw ValidationError("--prefetch must not be negative") }
        if outShared != nil && out != "out" { throw ValidationError("--out and --out-shared both name where the photos go: give one") }
        _ = try outputPlace()
        if let coordinator { _ = try CoordinatorListHelp.endpoints(coordinator) }
        if viewportMode && coordinator == nil {
            throw ValidationError("--visible keeps the job open, which needs a running coordinator: add --coordinator (or --all to run everything now)")
        }
    }

    /// Where the workers store the outputs themselves (`--out s3://…`, `--out-shared DIR`); nil:
    /// the coordinator writes them into the `--out` directory.
    func outputPlace() throws -> OutputPlace? {
        do {
            if let outShared { return try OutputPlace.shared(parsing: outShared) }
            if S3Location.isS3URL(out) { return try OutputPlace.s3(parsing: out) }
            return nil
        } catch {
            throw ValidationError("\(error)")
        }
    }

    var outputFormat: Photocluster_V1_OutputFormat {
        switch format?.lowercased() {
        case "jpeg", "jpg": return .jpeg
        case "png": return .png
        case "webp": return .webp
        case "avif": return .avif
        default: return .keep
        }
    }

    /// Orientation, colour and metadata for every photo of the job.
    var imageOptions: Photocluster_V1_ImageOptions {
        .with {
            $0.noAutoOrient = noAutoOrient
            $0.lossless = lossless
            if let avifSpeed { $0.avifSpeed = UInt32(avifSpeed) }
            if let chroma, let subsampling = Self.chromaSubsampling(chroma) { $0.chroma = subsampling }
            $0.colour = colour.lowercased() == "srgb" ? .srgb : .keep
            switch metadata.lowercased() {
            case "keep": $0.metadata = .keep
            case "copyright": $0.metadata = .copyright
            default: $0.metadata = .strip
            }
        }
    }

    /// `--chroma`'s value ("4:2:0" written out is taken too); nil for anything else.
    static func chromaSubsampling(_ text: String) -> Photocluster_V1_ChromaSubsampling? {
        switch text.replacingOccurrences(of: ":", with: "") {
        case "444": return .s444
        case "422": return .s422
        case "420": return .s420
        default: return nil
        }
    }

    /// Resolves every filter spec this host knows, so a bad one fails before any work, listing
    /// what exists. A name unknown here is left for a remote coordinator to check against its
    /// workers' filters; an embedded cluster has only this host's filters, so it fails here.
    func resolve(_ text: String, in registry: FilterRegistry) throws -> Photocluster_V1_FilterSpec {
        let spec: FilterSpec
        do {
            spec = try FilterSpec(parsing: text)
            if coordinator == nil || registry.stages[spec.name] != nil {
                let configured = try registry.resolve(spec)
                return Photocluster_V1_FilterSpec(configured.spec)
            }
        } catch let error as FilterSpecError {
            throw CommandFailure.usage(error.description)
        }
        return Photocluster_V1_FilterSpec(spec)
    }

    /// The submit message for a parsed manifest.
    func submitMessage(for manifest: Manifest, label: String, defaultFilters: [String], filters registry: FilterRegistry) throws -> Photocluster_V1_SubmitJob {
        let chain = try (filters.isEmpty ? defaultFilters : filters).map { try resolve($0, in: registry) }
        // A coordinator takes the directory relative to its output root (checking it stays
        // inside); the embedded cluster writes where the user says, from here.
        let outputDirectory = coordinator != nil ? out : URL(fileURLWithPath: out, isDirectory: true).standardizedFileURL.path
        var submit = Photocluster_V1_SubmitJob()
        submit.label = label
        submit.filters = chain
        if let place = try outputPlace() {
            submit.outputPlace = place.proto
        } else {
            submit.outputDir = outputDirectory
        }
        submit.replaceOutputs = replaceOutputs
        submit.format = outputFormat
        submit.quality = UInt32(quality)
        submit.fastDct = fastDCT
        submit.image = imageOptions
        if let visible {
            guard visible.range.lowerBound < manifest.entries.count else {
                throw CommandFailure.usage("--visible \(visible) is outside the manifest's photos 0..\(manifest.entries.count - 1)")
            }
            submit.viewportMode = viewportMode
            submit.viewport = .with {
                $0.visibleStart = UInt32(visible.range.lowerBound)
                $0.visibleEnd = UInt32(min(visible.range.upperBound, manifest.entries.count - 1))
                $0.prefetch = UInt32(prefetch)
            }
        }
        submit.photos = try manifest.entries.map { entry in
            var photo = Photocluster_V1_ManifestEntry()
            photo.name = entry.name
            photo.url = entry.url
            photo.filters = try (entry.filters ?? []).map { text in
                do { return try resolve(text, in: registry) } catch let failure as CommandFailure {
                    throw CommandFailure.usage("\(label): photo \"\(entry.name)\": \(failure.message)")
                }
            }
            return photo
        }
        return submit
    }
}
