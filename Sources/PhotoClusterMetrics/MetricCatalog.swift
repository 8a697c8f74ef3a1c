/// Every metric PhotoCluster nodes export. Coordinator and workers share names where the meaning
/// is the same (Prometheus's `job` label tells them apart); `deploy/prometheus/alerts.yml` relies
/// on these names.
public enum MetricCatalog {
    /// Stage durations, from a few milliseconds (a cached decode) to a slow transfer.
    static let stageBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    public static let photos = MetricDefinition(
        "photocluster_photos_total", "Photos that reached an end, by outcome (succeeded, failed, cancelled).")
    public static let stageDuration = MetricDefinition(
        "photocluster_stage_duration_seconds", "Time one stage of one photo took, by stage.", buckets: stageBuckets)
    public static let workerStageDuration = MetricDefinition(
        "photocluster_worker_stage_duration_seconds",
        "Time one stage of one photo took on each worker, by worker and stage: download, decode, filter, encode or write. "
            + "From the timings workers report for the task stream; a worker's series go when it leaves.",
        buckets: stageBuckets)
    public static let downloadedBytes = MetricDefinition(
        "photocluster_downloaded_bytes_total", "Bytes of photos downloaded.")
    public static let processedPixels = MetricDefinition(
        "photocluster_processed_pixels_total", "Pixels decoded or filtered, by stage.")
    public static let queueDepth = MetricDefinition(
        "photocluster_queue_depth",
        "Photos by stage: on the coordinator, 'queued' is its backlog and each stage counts photos at that stage on workers (waiting or running); on a worker, photos waiting for the stage.")
    public static let operationsRunning = MetricDefinition(
        "photocluster_operations_running", "Photos whose stage is running now on this worker, by stage.")
    public static let photosInFlight = MetricDefinition(
        "photocluster_photos_in_flight", "Photos held by a worker (running or queued there); on the coordinator, by worker.")
    public static let cancellations = MetricDefinition(
        "photocluster_cancellations_total",
        "Photos cancelled, by reason: 'viewport' (left the viewport while in flight) or 'client' (cancelled by a client).")
    public static let wastedBytes = MetricDefinition(
        "photocluster_wasted_bytes_total", "Bytes downloaded for photos outside the viewport at the time.")
    public static let wastedPixels = MetricDefinition(
        "photocluster_wasted_pixels_total", "Pixels processed for photos outside the viewport at the time.")
    public static let requeues = MetricDefinition(
        "photocluster_requeues_total", "Photos sent back to the queue because their worker was lost or gave them up.")
    public static let retries = MetricDefinition(
        "photocluster_retries_total", "Photos tried again after a transient failure (connection error, timeout, HTTP 5xx or 429).")
    public static let poisonPhotos = MetricDefinition(
        "photocluster_poison_photos_total",
        "Photos failed because the workers holding them kept dying (--max-worker-losses): they may crash workers.")
    public static let heartbeatMisses = MetricDefinition(
        "photocluster_heartbeat_misses_total",
        "Peers declared lost for missing heartbeats: workers on the coordinator, the coordinator on a worker.")
    public static let coordinatorSwitches = MetricDefinition(
        "photocluster_worker_coordinator_switches_total",
        "Times a worker given several coordinator endpoints left one for the next: it refused connections, closed the connection, or fell silent.")
    public static let workersConnected = MetricDefinition(
        "photocluster_workers_connected", "Workers registered with the coordinator now.")
    public static let jobPhotos = MetricDefinition(
        "photocluster_job_photos", "Photos of each unfinished job, by state (total, succeeded, failed, cancelled, in_flight).")
    public static let jobs = MetricDefinition(
        "photocluster_jobs", "Jobs the coordinator holds, by phase: every open job and the last finished ones (--keep-finished).")
    public static let droppedFrames = MetricDefinition(
        "photocluster_dropped_frames_total", "Messages dropped because they did not parse.")
    public static let rejectedResults = MetricDefinition(
        "photocluster_rejected_results_total",
        "Results, failures, progress and cancellations from workers dropped, by reason: 'not_sent' (that attempt of that photo was never sent to the worker), "
            + "'unknown_photo' (no such job or photo), 'wrong_key' (the worker's connection is not the key it registered with, or its key was removed).")
    public static let refusedRequests = MetricDefinition(
        "photocluster_refused_requests_total",
        "Client requests, and connections to either endpoint, refused, by reason: 'not_permitted' (another client's job), "
            + "'output_root' (an output directory outside --output-root), 'output_owner' (another client key's output directory), "
            + "'output_occupied' (a directory holding another job's outputs, without --replace-outputs), 'storage_grant' (an s3:// location outside "
            + "the key's grants), 'limit' (a job or open-jobs limit), 'key' (a key refused at the handshake, or removed), "
            + "'protocol_version' (a worker's hello or a client's request of a protocol version the coordinator does not accept), 'routing_id' (a connection of another key using the routing id a registered worker or client holds).")

    public static let pluginCrashes = MetricDefinition(
        "photocluster_plugin_crashes_total",
        "Plugin filters that took their plugin host down (a signal or an exit), by plugin file and filter; each failed its photo.")
    public static let stageTimeouts = MetricDefinition(
        "photocluster_stage_timeouts_total",
        "Stages that ran past the worker's --stage-timeout and failed their photo, by stage (decode, filter, encode).")

    public static let memoryLimit = MetricDefinition(
        "photocluster_memory_limit_bytes", "The worker process's memory limit: --memory-limit, else its cgroup's, else a share of physical memory.")
    public static let memoryBudget = MetricDefinition(
        "photocluster_memory_budget_bytes", "Bytes the worker's photos may hold at once: the limit less the reserve for the process and its stage cache.")
    public static let memoryInUse = MetricDefinition(
        "photocluster_memory_in_use_bytes", "Bytes of the memory budget held now by admitted photos (each photo's computed peak).")
    public static let memoryInUsePeak = MetricDefinition(
        "photocluster_memory_in_use_peak_bytes", "The most bytes of the memory budget held at once since the worker started.")
    public static let photosWaitingForMemory = MetricDefinition(
        "photocluster_photos_waiting_for_memory", "Photos downloaded and waiting for room in the memory budget before they decode.")
    public static let memoryWaits = MetricDefinition(
        "photocluster_memory_waits_total", "Photos that had to wait for room in the memory budget.")
    public static let memoryRefusals = MetricDefinition(
        "photocluster_memory_refusals_total", "Photos failed at once because their peak alone is over the memory budget.")

    public static let stageCacheBytes = MetricDefinition(
        "photocluster_stage_cache_bytes",
        "Bytes the stage cache holds now: downloads and decoded images kept for photos that come back (at most its capacity).")
    public static let stageCacheCapacity = MetricDefinition(
        "photocluster_stage_cache_capacity_bytes", "The stage cache's capacity: --cache-mb, at most a quarter of the memory limit less the process's reserve.")
    public static let residentBytes = MetricDefinition(
        "photocluster_resident_bytes", "The process's resident memory (RSS, /proc/self/statm): what the kernel holds against a memory limit.")

    public static let drainedPhotos = MetricDefinition(
        "photocluster_drained_photos_total",
        "Photos a draining worker held, by outcome: finished there, or handed back (not started, or still running at the drain timeout).")

    public static let httpRequests = MetricDefinition(
        "photocluster_http_requests_total",
        "Requests to the HTTP API (/v1), by status code (the codes the API documents; 'other' for the rest).")
    public static let httpEventStreams = MetricDefinition(
        "photocluster_http_event_streams", "Job event streams (GET /v1/jobs/{id}/events) open now.")

    public static let coordinatorLeader = MetricDefinition(
        "photocluster_coordinator_leader",
        "1 while this coordinator leads the coordinators on a shared journal (--state postgres://), 0 while it stands by.")
    public static let leaseToken = MetricDefinition(
        "photocluster_coordinator_lease_token", "The fencing token of the lease this coordinator leads by; 0 while it stands by.")
    public static let leaderSince = MetricDefinition(
        "photocluster_coordinator_leader_since_seconds",
        "When this coordinator took the lead (Unix time, by the database's clock); 0 while it stands by.")
    public static let takeovers = MetricDefinition(
        "photocluster_coordinator_takeovers_total", "Times this coordinator process took the lead of a shared journal.")
    public static let fencedWrites = MetricDefinition(
        "photocluster_coordinator_fenced_writes_total",
        "Journal writes the database refused because another coordinator had taken the lease over (each ends this one's lead).")

    /// What every coordinator on a shared journal exports, standing by or leading.
    public static let leadership: [MetricDefinition] = [coordinatorLeader, leaseToken, leaderSince, takeovers]

    public static let coordinator: [MetricDefinition] = [
        photos, stageDuration, workerStageDuration, downloadedBytes, processedPixels, queueDepth, photosInFlight, cancellations,
        wastedBytes, wastedPixels, requeues, retries, poisonPhotos, heartbeatMisses, workersConnected, jobPhotos, jobs, droppedFrames,
        rejectedResults, refusedRequests, httpRequests, httpEventStreams, fencedWrites, residentBytes,
    ]

    public static let worker: [MetricDefinition] = [
        photos, stageDuration, downloadedBytes, processedPixels, queueDepth, operationsRunning, photosInFlight, heartbeatMisses,
        coordinatorSwitches, pluginCrashes, stageTimeouts, memoryLimit, memoryBudget, memoryInUse, memoryInUsePeak, photosWaitingForMemory, memoryWaits,
        memoryRefusals, stageCacheBytes, stageCacheCapacity, residentBytes, drainedPhotos,
    ]
}
