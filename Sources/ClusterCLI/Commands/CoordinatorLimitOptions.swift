import ArgumentParser
import PhotoClusterCoordinator

/// What one coordinator takes (see `CoordinatorLimits`).
struct CoordinatorLimitOptions: ParsableArguments {
    @Option(name: .customLong("max-photos-per-job"), help: ArgumentHelp("Photos one job may hold.", valueName: "n"))
    var maxPhotosPerJob = CoordinatorLimits().maxPhotosPerJob

    @Option(name: .customLong("max-manifest-mb"), help: ArgumentHelp("Size of one job's manifest as sent, in MiB.", valueName: "n"))
    var maxManifestMB = CoordinatorLimits().maxManifestBytes >> 20

    @Option(name: .customLong("max-open-jobs-per-client"), help: ArgumentHelp("Unfinished jobs one client key may have (with CURVE).", valueName: "n"))
    var maxOpenJobsPerClient = CoordinatorLimits().maxOpenJobsPerClient

    @Option(name: .customLong("max-open-jobs"), help: ArgumentHelp("Unfinished jobs in all.", valueName: "n"))
    var maxOpenJobs = CoordinatorLimits().maxOpenJobs

    @Option(
        name: .customLong("max-viewport-changes-per-second"),
        help: ArgumentHelp("Viewport changes one client key may make a second (and at once); more are refused. Only a job's latest change of a moment is applied.", valueName: "n"))
    var maxViewportChangesPerSecond = CoordinatorLimits().viewportChangesPerSecond

    func validate() throws {
        for (flag, value) in [("--max-photos-per-job", maxPhotosPerJob), ("--max-manifest-mb", maxManifestMB),
                              ("--max-open-jobs-per-client", maxOpenJobsPerClient), ("--max-open-jobs", maxOpenJobs),
                              ("--max-viewport-changes-per-second", maxViewportChangesPerSecond)] where value < 1 {
            throw ValidationError("\(flag) must be at least 1, got \(value)")
        }
        guard maxManifestMB <= 4096 else { throw ValidationError("--max-manifest-mb must be at most 4096, got \(maxManifestMB)") }
    }

    var limits: CoordinatorLimits {
        CoordinatorLimits(
            maxPhotosPerJob: maxPhotosPerJob, maxManifestBytes: maxManifestMB << 20,
            maxOpenJobsPerClient: maxOpenJobsPerClient, maxOpenJobs: maxOpenJobs, viewportChangesPerSecond: maxViewportChangesPerSecond)
    }
}
