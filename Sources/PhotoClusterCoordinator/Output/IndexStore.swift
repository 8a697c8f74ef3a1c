import Foundation
import PhotoClusterCore
import PhotoClusterDownload
import PhotoClusterScheduling
import PhotoClusterStorage

/// Puts a finished job's `index.json` where the workers stored its outputs.
///
/// The coordinator holds the index (every photo's state, reason and location), so it writes it
/// itself rather than sending megabytes of it to a worker and waiting for that worker: into S3
/// with its own credentials (its `AWS_*` environment; it needs only `s3:PutObject` on
/// `PREFIX/index.json`), or into a shared directory it mounts inside its own `--shared-root`.
/// It also removes the temporary files a worker killed mid-write left in a shared directory.
/// The index is made on a writer thread, as `JobIndex` streams it (a million photos make
/// hundreds of megabytes), from a snapshot of the job taken when it finished.
///
/// `@unchecked Sendable` invariant: the configuration is immutable; the S3 client, made on first
/// use, sits behind `client`'s lock.
final class IndexStore: @unchecked Sendable {
    private let s3: S3Configuration
    private let sharedRoots: SharedOutputRoots
    private let writers: BlockingWorkThreads
    private let client = LockedBox<(engine: DownloadEngine, s3: S3Client)?>(nil)

    init(s3: S3Configuration, sharedRoots: SharedOutputRoots, writers: BlockingWorkThreads) {
        self.s3 = s3
        self.sharedRoots = sharedRoots
        self.writers = writers
    }

    /// Stores the index of `job` (a snapshot the caller lets go) as `index.json` in `place`;
    /// `completion` gets nil, or why it could not, saying what to do. It runs on another thread.
    func store(_ job: Job, in place: OutputPlace, completion: @escaping @Sendable (String?) -> Void) {
        let job = UncheckedJob(job: job)
        switch place {
        case .s3(let prefix):
            let object = prefix.appending("index.json")
            writers.submit { [self] in
                let index: Data
                do {
                    index = try Self.document(of: job.job)
                } catch {
                    return completion("\(error)")
                }
                let client = s3Client()
                Task {
                    do {
                        try await client.put(index, at: object, contentType: "application/json")
                        completion(nil)
                    } catch let failure as S3Failure {
                        // S3's own text and the key id went to the coordinator's log (`S3Diagnostics`).
                        completion("\(failure.clientMessage); the coordinator writes index.json with its own credentials, which need s3:PutObject on \(object)")
                    } catch {
                        completion("\(error); the coordinator writes index.json with its own credentials, which need s3:PutObject on \(object)")
                    }
                }
            }
        case .shared(let path):
            let roots = sharedRoots
            writers.submit {
                do {
                    let directory = try OutputRoot.openUnconfined(try roots.directory(for: path).path)
                    for name in directory.names(hiddenOnly: true) where name.hasSuffix(".tmp") && name.contains(".\(job.job.id)-") {
                        directory.remove(named: name)
                    }
                    try JobIndex.write(job.job, in: directory)
                    completion(nil)
                } catch {
                    completion("\(error); the coordinator writes index.json into a shared directory it mounts at the same path, inside its --shared-root")
                }
            }
        }
    }

    /// Stops the S3 client's transfers thread, if it was started.
    func shutdown() {
        client.withLock { $0 }?.engine.shutdown()
    }

    private func s3Client() -> S3Client {
        client.withLock { made -> S3Client in
            if made == nil {
                let engine = DownloadEngine()
                made = (engine, S3Client(configuration: s3, engine: engine))
            }
            return made!.s3
        }
    }

    /// The index as bytes, for an upload: streamed into a temporary file, then read back.
    private static func document(of job: Job) throws -> Data {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("photocluster-index-\(job.id)-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let directory = try OutputRoot.openUnconfined(scratch.path)
        try JobIndex.write(job, in: directory)
        return try Data(contentsOf: directory.file("index.json"))
    }
}

/// A finished job's copy handed to a writer thread.
///
/// `@unchecked Sendable` invariant: it is a `Job.snapshot()` taken on the loop thread when the
/// job finished; the writer thread only reads it, and nobody else sees this copy.
private struct UncheckedJob: @unchecked Sendable {
    let job: Job
}
