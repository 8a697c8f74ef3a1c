import ArgumentParser
import Foundation
import PhotoClusterStorage
import PhotoClusterWorker

/// Where a worker (or, for `index.json`, the coordinator) stores outputs of jobs that keep them
/// in S3 or a shared directory: S3 from the `AWS_*` environment, shared file systems by flag.
struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("shared-root"), help: ArgumentHelp("A shared file system mounted here (NFS, CephFS, a ReadWriteMany volume): jobs' --out-shared directories must lie inside one (repeat for more).", valueName: "dir"))
    var sharedRoots: [String] = []

    func validate() throws {
        _ = try s3()
        _ = try roots()
    }

    /// S3 settings from this process's environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
    /// AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL).
    func s3(partMB: Int? = nil) throws -> S3Configuration {
        do {
            var configuration = try S3Configuration.fromEnvironment()
            if let partMB { configuration.partSize = max(S3Configuration.minimumPartSize, partMB << 20) }
            return configuration
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func roots() throws -> SharedOutputRoots {
        do {
            return try SharedOutputRoots(sharedRoots)
        } catch {
            throw ValidationError("--shared-root: \(error)")
        }
    }
}
