import Foundation

/// What one coordinator takes, whatever its clients check on their side: photos and manifest
/// bytes per job, and jobs open at once per client and in all. A refusal names the limit and
/// the `cluster coordinator` option that changes it.
public struct CoordinatorLimits: Sendable {
    public var maxPhotosPerJob: Int
    /// The encoded submit message (the manifest with its filters), in bytes.
    public var maxManifestBytes: Int
    /// Open (unfinished) jobs of one client key; without CURVE clients have no key and only
    /// `maxOpenJobs` applies.
    public var maxOpenJobsPerClient: Int
    public var maxOpenJobs: Int
    /// Viewport changes one client (key) may make per second, and at once (`ViewportInbox`).
    public var viewportChangesPerSecond: Int

    public init(
        maxPhotosPerJob: Int = 1_000_000, maxManifestBytes: Int = 64 << 20, maxOpenJobsPerClient: Int = 50, maxOpenJobs: Int = 500,
        viewportChangesPerSecond: Int = 50
    ) {
        self.viewportChangesPerSecond = viewportChangesPerSecond
        self.maxPhotosPerJob = maxPhotosPerJob
        self.maxManifestBytes = maxManifestBytes
        self.maxOpenJobsPerClient = maxOpenJobsPerClient
        self.maxOpenJobs = maxOpenJobs
    }

    /// The client socket takes messages up to twice the manifest limit, so a manifest a little
    /// over it still arrives and is refused with a reason (libzmq drops the connection of a
    /// larger one without a word).
    var socketMessageBytes: Int64 { Int64(max(maxManifestBytes, 1 << 20)) * 2 }

    /// Why a job of `photos` photos whose submit took `bytes` is too large, or nil.
    func sizeProblem(photos: Int, bytes: Int) -> String? {
        if bytes > maxManifestBytes {
            return "the job's manifest is \(Self.megabytes(bytes)); this coordinator takes at most \(Self.megabytes(maxManifestBytes)) per job "
                + "(cluster coordinator --max-manifest-mb): split the manifest, or ask its operator to raise the limit"
        }
        if photos > maxPhotosPerJob {
            return "the job has \(photos) photos; this coordinator takes at most \(maxPhotosPerJob) per job "
                + "(cluster coordinator --max-photos-per-job): split the manifest, or ask its operator to raise the limit"
        }
        return nil
    }

    /// Why one more job cannot open now, given the open jobs of its client (nil without a key)
    /// and in all, or nil.
    func openJobsProblem(ofClient clientJobs: Int?, inAll allJobs: Int) -> String? {
        if let clientJobs, clientJobs >= maxOpenJobsPerClient {
            return "this client already has \(clientJobs) open jobs, the most a client may have "
                + "(cluster coordinator --max-open-jobs-per-client): wait for one to finish, or cancel one"
        }
        if allJobs >= maxOpenJobs {
            return "the coordinator already has \(allJobs) open jobs, the most it takes (cluster coordinator --max-open-jobs): "
                + "wait for some to finish, or ask its operator to raise the limit"
        }
        return nil
    }

    private static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
}
