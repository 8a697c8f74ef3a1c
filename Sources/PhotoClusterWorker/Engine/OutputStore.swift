import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterStorage

/// Why an output could not be stored, as the photo's failure reports it.
struct StoreFailure: Error, Sendable {
    /// "upload" (S3) or "write" (a shared directory).
    let stageName: String
    let reason: String
    let isTransient: Bool
    var isCancelled = false
}

/// Stores a worker's outputs where their jobs keep them: objects in S3, files in a shared
/// directory inside the worker's shared roots.
final class OutputStore: Sendable {
    let s3: S3Client
    let sharedRoots: SharedOutputRoots

    init(s3: S3Client, sharedRoots: SharedOutputRoots) {
        self.s3 = s3
        self.sharedRoots = sharedRoots
    }

    /// Uploads `data` as each of `fileNames` under `prefix`; the objects' URLs, in order.
    func upload(_ data: Data, as fileNames: [String], under prefix: S3Location, format: ImageFormat) async -> Result<[String], StoreFailure> {
        var locations: [String] = []
        for fileName in fileNames {
            let object = prefix.appending(fileName)
            do {
                try await s3.put(data, at: object, contentType: format.mediaType)
            } catch let failure as S3Failure {
                return .failure(StoreFailure(stageName: "upload", reason: failure.clientMessage, isTransient: failure.isTransient, isCancelled: failure.isCancelled))
            } catch {
                return .failure(StoreFailure(stageName: "upload", reason: "\(error)", isTransient: false))
            }
            locations.append(object.description)
        }
        return .success(locations)
    }

    /// Writes `data` as each of `fileNames` in the shared `directory`; the files' paths, in order.
    /// Blocks on the file system: call it from an I/O thread.
    func write(_ data: Data, as fileNames: [String], in directory: String, tag: String) -> Result<[String], StoreFailure> {
        do {
            let real = try sharedRoots.directory(for: directory)
            for fileName in fileNames { try SharedOutputRoots.write(data, named: fileName, in: real, tag: tag) }
            // Reported as the job named it, which is how every worker and the user see it.
            return .success(fileNames.map { OutputPlace.shared(directory).location(of: $0) })
        } catch let refused as SharedPathError {
            return .failure(StoreFailure(stageName: "write", reason: refused.description, isTransient: false))
        } catch {
            // A full or unreachable file system may recover; the coordinator retries a few times.
            return .failure(StoreFailure(stageName: "write", reason: "\(error)", isTransient: true))
        }
    }
}

extension ImageFormat {
    /// The Content-Type an object of this format is stored with.
    var mediaType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .webp: return "image/webp"
        case .avif: return "image/avif"
        case .heif: return "image/heic"
        case .tiff: return "image/tiff"
        case .gif: return "image/gif"
        case .jxl: return "image/jxl"
        }
    }
}
