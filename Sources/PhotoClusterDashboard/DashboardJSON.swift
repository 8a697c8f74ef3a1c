import Foundation
import PhotoClusterCoordinator
import PhotoClusterProto
import PhotoClusterScheduling

/// The JSON the dashboard's pages read, made from the coordinator's status and history.
/// Field names are the API's (see docs/operating.md, "The dashboard").
enum DashboardJSON {
    struct Throughput: Encodable {
        let photosPerSecond10s, photosPerSecond60s, megapixelsPerSecond10s, megapixelsPerSecond60s: Double

        init(_ proto: Photocluster_V1_Throughput) {
            photosPerSecond10s = proto.photosPerSecond10S
            photosPerSecond60s = proto.photosPerSecond60S
            megapixelsPerSecond10s = proto.megapixelsPerSecond10S
            megapixelsPerSecond60s = proto.megapixelsPerSecond60S
        }
    }

    struct Worker: Encodable {
        let id, host: String
        let concurrency, inFlight: UInt32
        let completed: UInt64
        let photosPerSecond10s, photosPerSecond60s: Double
        /// Photos' operations per stage there, queued or running.
        let stages: [String: UInt32]
        /// Its memory budget (nil when it reports none).
        let memory: Memory?
        /// Its process's resident memory at its latest heartbeat (nil when it reports none).
        let residentBytes: UInt64?
        /// "working", "draining" (finishing what runs, taking nothing) or "drained".
        let state: String

        struct Memory: Encodable {
            let limitBytes, budgetBytes, inUseBytes: UInt64
            let waiting: UInt32
        }

        init(_ proto: Photocluster_V1_WorkerStatus) {
            state = proto.state == .draining ? "draining" : proto.state == .drained ? "drained" : "working"
            id = proto.workerID
            host = proto.host
            concurrency = proto.concurrency
            inFlight = proto.inFlight
            completed = proto.completed
            photosPerSecond10s = proto.throughput.photosPerSecond10S
            photosPerSecond60s = proto.throughput.photosPerSecond60S
            stages = Dictionary(proto.stages.map { ($0.stage.metricLabel, $0.queued + $0.running) }, uniquingKeysWith: +)
            memory = proto.memoryBudgetBytes == 0 ? nil : Memory(
                limitBytes: proto.memoryLimitBytes, budgetBytes: proto.memoryBudgetBytes, inUseBytes: proto.memoryInUseBytes,
                waiting: proto.photosWaitingForMemory)
            residentBytes = proto.residentBytes == 0 ? nil : proto.residentBytes
        }
    }

    struct Viewport: Encodable {
        let visibleStart, visibleEnd, prefetch: UInt32
        let scrolling: Bool
        let epoch: UInt64
    }

    struct Photo: Encodable {
        let index: UInt32
        let name, state: String
        let inFlight: Bool
        let worker, stage, reason: String
        let width, height: UInt32

        init(_ proto: Photocluster_V1_PhotoStatus) {
            index = proto.index
            name = proto.name
            state = proto.state.jsonName
            inFlight = !proto.workerID.isEmpty
            worker = proto.workerID
            stage = proto.stage
            reason = proto.reason
            width = proto.width
            height = proto.height
        }
    }

    struct Job: Encodable {
        let id, label, phase: String
        /// The phase as people say it ("finished"), for display; `phase` is the value scripts compare.
        let phaseLabel: String
        let total, succeeded, failed, cancelled, done, inFlight: UInt32
        let photosPerSecond10s, elapsedSeconds: Double
        let viewportMode, suspended: Bool
        let viewport: Viewport
        let outputDir: String
        let photos: [Photo]?

        init(_ proto: Photocluster_V1_JobSummary, includePhotos: Bool) {
            id = proto.jobID
            label = proto.label
            phase = proto.phase.jsonName
            phaseLabel = proto.phase.displayName
            total = proto.progress.total
            succeeded = proto.progress.succeeded
            failed = proto.progress.failed
            cancelled = proto.progress.cancelled
            done = proto.progress.done
            inFlight = proto.inFlight
            photosPerSecond10s = proto.throughput.photosPerSecond10S
            elapsedSeconds = proto.elapsedSeconds
            viewportMode = proto.viewportMode
            suspended = proto.suspended
            viewport = Viewport(
                visibleStart: proto.viewport.visibleStart, visibleEnd: proto.viewport.visibleEnd, prefetch: proto.viewport.prefetch,
                scrolling: proto.viewport.scrolling, epoch: proto.viewport.epoch)
            outputDir = proto.outputDir
            photos = includePhotos ? proto.photos.map(Photo.init) : nil
        }
    }

    struct Failure: Encodable {
        let jobId: String
        let index: UInt32
        let name, stage, reason: String
        let at: Double
    }

    struct Queues: Encodable {
        let queued, download, decode, filter, encode: UInt32
    }

    struct Overview: Encodable {
        let coordinatorId: String
        let uptimeSeconds: Double
        /// The coordinator process's resident memory (nil when not read).
        let residentBytes: UInt64?
        let throughput: Throughput
        let queues: Queues
        let workers: [Worker]
        let jobs: [Job]
        let failures: [Failure]

        init(_ status: Photocluster_V1_StatusReply) {
            coordinatorId = status.coordinatorID
            uptimeSeconds = status.uptimeSeconds
            residentBytes = status.residentBytes == 0 ? nil : status.residentBytes
            throughput = Throughput(status.throughput)
            workers = status.workers.map(Worker.init)
            let stages = status.stageLoads
            queues = Queues(
                queued: status.queued, download: stages[.download]?.total ?? 0, decode: stages[.decode]?.total ?? 0,
                filter: stages[.filter]?.total ?? 0, encode: stages[.encode]?.total ?? 0)
            jobs = status.jobs.map { Job($0, includePhotos: false) }
            failures = status.recentFailures.map {
                Failure(jobId: $0.jobID, index: $0.index, name: $0.name, stage: $0.stage, reason: $0.reason, at: $0.atUnixSeconds)
            }
        }
    }

    struct History: Encodable {
        struct Sample: Encodable {
            let t, photosPerSecond, megapixelsPerSecond: Double
            let workers, jobs: [String: Int]
        }

        let intervalSeconds = 1
        let samples: [Sample]

        init(_ history: ThroughputHistory) {
            samples = history.samples.map {
                Sample(
                    t: $0.start.timeIntervalSince1970, photosPerSecond: Double($0.photos), megapixelsPerSecond: Double($0.pixels) / 1e6,
                    workers: $0.photosByWorker, jobs: $0.photosByJob)
            }
        }
    }

    /// A page of the task stream: the spans after the sequence asked for, oldest first.
    struct TaskStream: Encodable {
        /// The newest span's sequence: ask for `/api/tasks?after=` it next.
        let sequence: UInt64
        /// The most spans the coordinator keeps; 0: the stream is off.
        let capacity: Int
        /// The coordinator's clock, seconds since 1970 (the page's "now").
        let now: Double
        let spans: [Span]

        struct Span: Encodable {
            let worker, job: String
            let photo: UInt32
            let photoName: String
            let attempt: UInt32
            /// download, decode, filter, encode or write; `name` says which filter ("filter:sepia").
            let stage, name: String
            /// Milliseconds since 1970 on the worker's clock, and how long it ran.
            let start, duration: Double
            /// ok, failed or cancelled.
            let outcome: String
            /// A point filter that ran inside the encode.
            let fused: Bool
        }

        init(_ page: TaskStreamPage) {
            sequence = page.sequence
            capacity = page.capacity
            now = Date().timeIntervalSince1970
            spans = page.spans.map {
                Span(
                    worker: $0.workerID, job: $0.jobID, photo: $0.photoIndex, photoName: $0.photoName, attempt: $0.attempt,
                    stage: $0.span.stage.metricLabel, name: $0.span.name, start: Double($0.span.startUnixUs) / 1000,
                    duration: Double($0.span.durationUs) / 1000, outcome: $0.span.outcome.label, fused: $0.span.fused)
            }
        }
    }

    struct Problem: Encodable {
        let error: String
    }
}

extension Photocluster_V1_JobPhase {
    var jsonName: String {
        switch self {
        case .preparation: return "preparation"
        case .inProgress: return "inProgress"
        case .willFinish: return "willFinish"
        case .didFinish: return "didFinish"
        case .cancelled: return "cancelled"
        default: return "unknown"
        }
    }
}

extension Photocluster_V1_PhotoState {
    var jsonName: String {
        switch self {
        case .new: return "new"
        case .downloaded: return "downloaded"
        case .filtered: return "filtered"
        case .done: return "done"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        default: return "unknown"
        }
    }
}
