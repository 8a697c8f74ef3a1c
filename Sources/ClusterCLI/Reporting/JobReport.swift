import Foundation
import PhotoClusterProto

/// The end of a job as a table for people or one JSON object for programs.
struct JobReport {
    /// The table lists every photo of a job up to this many; a larger job's table lists the
    /// photos that did not succeed, and says where the index of every photo is.
    static let photoTableLimit = 1000

    let summary: Photocluster_V1_JobSummary

    var allSucceeded: Bool {
        summary.progress.succeeded == summary.progress.total
    }

    // MARK: - JSON

    struct Document: Encodable {
        struct Failure: Encodable {
            let name: String
            let url: String
            let stage: String
            let error: String
        }

        struct Output: Encodable {
            let name: String
            let path: String
            let width: Int
            let height: Int
        }

        let job: String
        let total: Int
        let succeeded: Int
        let cancelled: Int
        let failed: [Failure]
        let outputs: [Output]
        let elapsedSeconds: Double

        enum CodingKeys: String, CodingKey {
            case job, total, succeeded, cancelled, failed, outputs
            case elapsedSeconds = "elapsed_seconds"
        }
    }

    var document: Document {
        let photos = summary.photos
        return Document(
            job: summary.jobID,
            total: Int(summary.progress.total),
            succeeded: Int(summary.progress.succeeded),
            cancelled: Int(summary.progress.cancelled),
            failed: photos.filter { $0.state == .failed }.map {
                Document.Failure(name: $0.name, url: $0.url, stage: $0.stage, error: $0.reason)
            },
            outputs: photos.filter { $0.state == .done }.map {
                Document.Output(name: $0.name, path: $0.outputPath, width: Int($0.width), height: Int($0.height))
            },
            elapsedSeconds: (summary.elapsedSeconds * 1000).rounded() / 1000
        )
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(document)) ?? Data("{}".utf8), as: UTF8.self)
    }

    // MARK: - Table

    func table() -> String {
        let photos = summary.photos
        let nameWidth = min(32, max(5, photos.map(\.name.count).max() ?? 5))
        var text = pad("PHOTO", nameWidth) + "  " + pad("RESULT", 9) + "  " + pad("SIZE", 11) + "  OUTPUT / REASON\n"
        for photo in photos {
            let (result, size, detail): (String, String, String)
            switch photo.state {
            case .done:
                (result, size, detail) = ("ok", "\(photo.width)x\(photo.height)", relative(photo.outputPath))
            case .failed:
                (result, size, detail) = ("failed", "-", "\(photo.stage): \(photo.reason)")
            case .cancelled:
                (result, size, detail) = ("cancelled", "-", photo.reason)
            default:
                (result, size, detail) = ("\(photo.state)", "-", "")
            }
            text += pad(photo.name, nameWidth) + "  " + pad(result, 9) + "  " + pad(size, 11) + "  " + detail + "\n"
        }
        let p = summary.progress
        if photos.count < p.total {
            let location = summary.outputDir.hasSuffix("/") ? summary.outputDir : summary.outputDir + "/"
            text += "(\(Int(p.total) - photos.count) photos that succeeded are not listed: \(location)index.json lists every photo)\n"
        }
        let rate = summary.elapsedSeconds > 0 ? Double(p.succeeded) / summary.elapsedSeconds : 0
        text += "\n\(p.succeeded) ok, \(p.failed) failed, \(p.cancelled) cancelled of \(p.total) in "
            + String(format: "%.2f s (%.1f photos/s)", summary.elapsedSeconds, rate) + "\n"
        if p.failed > 0 {
            text += "Failed photos left no file; fix their URLs or files and submit them again.\n"
        }
        return text
    }

    private func pad(_ text: String, _ width: Int) -> String {
        let clipped = text.count > width ? String(text.prefix(width - 1)) + "…" : text
        return clipped + String(repeating: " ", count: max(0, width - clipped.count))
    }

    private func relative(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}
