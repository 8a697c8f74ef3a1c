import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterProtocol


/// `POST /v1/jobs`'s body as the submit message `cluster submit` sends: the manifest goes
/// through the same parser (names, URLs, duplicates and Unicode twins, limits), the filters
/// through the same spec syntax, the output through the same places.
enum JobSubmission {
    static func message(for request: Components.Schemas.SubmitRequest) throws -> Photocluster_V1_SubmitJob {
        let manifest = try parse(request.manifest)
        var submit = Photocluster_V1_SubmitJob()
        submit.label = request.label ?? "HTTP"
        submit.filters = try (request.filters ?? []).map { try spec($0, for: "filters") }
        do {
            if let shared = request.outShared {
                guard request.out == nil else { throw APIProblem(400, "out and outShared both name where the photos go: give one") }
                submit.outputPlace = try OutputPlace.shared(parsing: shared).proto
            } else if let out = request.out, S3Location.isS3URL(out) {
                submit.outputPlace = try OutputPlace.s3(parsing: out).proto
            } else {
                submit.outputDir = request.out ?? "out"
            }
        } catch let problem as APIProblem {
            throw problem
        } catch {
            throw APIProblem(400, "out: \(error)")
        }
        submit.replaceOutputs = request.replaceOutputs ?? false
        submit.format = switch request.format {
        case .jpeg?: .jpeg
        case .png?: .png
        case .webp?: .webp
        case .avif?: .avif
        case nil: .keep
        }
        if let quality = request.quality, !(1...100).contains(quality) { throw APIProblem(400, "quality must be between 1 and 100, got \(quality)") }
        submit.quality = UInt32(request.quality ?? 90)
        submit.fastDct = request.fastDCT ?? false
        if request.chroma != nil, let format = request.format, format != .jpeg {
            throw APIProblem(400, "chroma is for JPEG output; format \(format.rawValue) has no chroma subsampling to choose")
        }
        if request.lossless == true && request.format != .webp { throw APIProblem(400, "lossless is for format webp (PNG is always lossless; JPEG never is)") }
        if let speed = request.avifSpeed {
            guard (0...9).contains(speed) else { throw APIProblem(400, "avifSpeed must be between 0 and 9, got \(speed)") }
            guard request.format == .avif else { throw APIProblem(400, "avifSpeed is for format avif") }
        }
        submit.image = .with {
            $0.noAutoOrient = request.autoOrient == false
            $0.lossless = request.lossless ?? false
            if let speed = request.avifSpeed { $0.avifSpeed = UInt32(speed) }
            switch request.chroma {
            case ._444?: $0.chroma = .s444
            case ._422?: $0.chroma = .s422
            case ._420?: $0.chroma = .s420
            case nil: break
            }
            $0.colour = request.colour == .srgb ? .srgb : .keep
            $0.metadata = switch request.metadata {
            case .keep?: .keep
            case .copyright?: .copyright
            default: .strip
            }
        }
        if let viewport = request.viewport {
            submit.viewport = try ViewportBody.proto(viewport)
            submit.viewportMode = request.viewportMode ?? false
        } else if request.viewportMode == true {
            throw APIProblem(400, "viewportMode runs only the viewport's photos: give a viewport as well")
        }
        submit.photos = try manifest.entries.map { entry in
            var photo = Photocluster_V1_ManifestEntry()
            photo.name = entry.name
            photo.url = entry.url
            photo.filters = try (entry.filters ?? []).map { try spec($0, for: "photo \"\(entry.name)\"") }
            return photo
        }
        return submit
    }

    /// The manifest as `cluster submit` reads a JSON manifest, so every rule is the same.
    private static func parse(_ entries: [Components.Schemas.ManifestEntry]) throws -> Manifest {
        let objects: [[String: Any]] = entries.map { entry in
            var object: [String: Any] = ["name": entry.name, "url": entry.url]
            if let filters = entry.filters { object["filters"] = filters }
            return object
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: objects)
            return try ManifestParser().parse(data, file: "the manifest")
        } catch {
            throw APIProblem(400, "\(error)")
        }
    }

    private static func spec(_ text: String, for item: String) throws -> Photocluster_V1_FilterSpec {
        do {
            let spec = try FilterSpec(parsing: text)
            return .with {
                $0.name = spec.name
                $0.params = spec.parameters.map { key, value in .with { $0.key = key; $0.value = value } }
            }
        } catch {
            throw APIProblem(400, "\(item): \(error)")
        }
    }
}

/// A viewport in the API's shape, checked as the protocol needs it.
enum ViewportBody {
    static func proto(_ viewport: Components.Schemas.Viewport) throws(APIProblem) -> Photocluster_V1_Viewport {
        guard let start = UInt32(exactly: viewport.visibleStart), let end = UInt32(exactly: viewport.visibleEnd),
              let prefetch = UInt32(exactly: viewport.prefetch ?? 0) else {
            throw APIProblem(400, "viewport: visibleStart, visibleEnd and prefetch are photo indices from 0 to 4294967295")
        }
        guard start <= end else { throw APIProblem(400, "viewport: visibleStart \(start) is after visibleEnd \(end)") }
        return .with {
            $0.visibleStart = start
            $0.visibleEnd = end
            $0.prefetch = prefetch
            $0.scrolling = viewport.scrolling ?? false
        }
    }
}
