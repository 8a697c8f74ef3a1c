import PhotoClusterStorage

/// Where a worker reads `s3://` photos from and stores outputs itself: S3 (settings from the
/// `AWS_*` environment of the worker, never from a job) and the shared file systems it mounts.
public struct WorkerStorage: Sendable {
    public var s3: S3Configuration
    /// The directories a job's shared output directory must lie in (`--shared-root`).
    public var sharedRoots: SharedOutputRoots

    public init(s3: S3Configuration = S3Configuration(), sharedRoots: SharedOutputRoots = .none) {
        self.s3 = s3
        self.sharedRoots = sharedRoots
    }
}
