import Foundation
import LoopbackHTTP
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterProto

// Viewport benchmark: a coordinator and 4 worker processes over TCP on loopback, the 500-photo
// manifest served on loopback, and three figures:
//   1. cancel latency: a viewport change's arrival at the coordinator → last worker's
//      acknowledgement, over changes made while the workers are busy;
//   2. wasted work on the fast fling trace: bytes and pixels spent on photos outside
//      visible ∪ prefetch when they were worked on, as a share of all work;
//   3. time from a settled viewport to the first newly visible photo done.
// Usage: viewport-benchmark [--cluster PATH] [--workers N] [--changes N] [--job-photos N]
//                           [--state] [--stage-priority P] [--writer-priority P] [--name NAME] [--out DIR]

struct Options {
    var cluster = ".build/release/cluster"
    var workers = 4
    var changes = 300
    /// Photos of the latency job; 0: as many as the changes can want.
    var jobPhotos = 0
    /// The coordinator keeps its journal (`--state`), as a production one does.
    var state = false
    var stagePriority: String?
    var writerPriority: String?
    var name = "viewport"
    var out = "bench/results"
    var prefetch = 5

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        while let flag = rest.popFirst() {
            if flag == "--state" {
                state = true
                continue
            }
            let value = rest.popFirst() ?? ""
            switch flag {
            case "--cluster": cluster = value
            case "--workers": workers = Int(value) ?? workers
            case "--changes": changes = Int(value) ?? changes
            case "--job-photos": jobPhotos = Int(value) ?? jobPhotos
            case "--stage-priority": stagePriority = value
            case "--writer-priority": writerPriority = value
            case "--name": name = value
            case "--out": out = value
            default:
                FileHandle.standardError.write(Data("unknown option \(flag)\n".utf8))
                exit(2)
            }
        }
    }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// The load average over the last minute: figures taken while other work runs are noisy.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
}

func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

/// Starts `cluster` with arguments; its output goes to a log file.
func launch(_ binary: String, _ arguments: [String], log: URL) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let handle = try FileHandle(forWritingTo: log)
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    return process
}

let options = Options(CommandLine.arguments)
guard FileManager.default.isExecutableFile(atPath: options.cluster) else {
    note("\(options.cluster) is missing: build it with `swift build -c release --product cluster` (or run `make bench`)")
    exit(1)
}
/// The run's logs, journal and outputs (a latency job writes about 230 MB): removed when the run
/// succeeds, kept for a look when it fails.
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("viewport-bench-\(getpid())")
let logs = scratch.appendingPathComponent("logs")
try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
let server = try LoopbackHTTPServer.serving(directory: URL(fileURLWithPath: "samples/photos"))
// Below Linux's ephemeral range (32768 up): a worker reconnecting to a port in it while nothing
// listens there can be given that very port as its own and connect to itself.
let port = Int.random(in: 20_000...30_000)
let workerEndpoint = "tcp://127.0.0.1:\(port)"
let clientEndpoint = "tcp://127.0.0.1:\(port + 1)"
let loadAtStart = loadAverage()
var coordinatorArguments = ["coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--heartbeat-ms", "250", "--output-root", scratch.path]
if options.state { coordinatorArguments += ["--state", scratch.appendingPathComponent("state").path] }
if let priority = options.writerPriority { coordinatorArguments += ["--writer-priority", priority] }
var processes = [try launch(options.cluster, coordinatorArguments, log: logs.appendingPathComponent("coordinator.log"))]
for index in 0..<options.workers {
    // --allow-loopback: the photos are served on 127.0.0.1, which a worker refuses by default.
    var arguments = ["worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", "bench-\(index)", "--allow-loopback"]
    if let priority = options.stagePriority { arguments += ["--stage-priority", priority] }
    processes.append(try launch(options.cluster, arguments, log: logs.appendingPathComponent("worker-\(index).log")))
}
/// Stops the coordinator and the workers (`exit` skips top-level `defer`s, so failures call it too).
func stopCluster() {
    for process in processes.reversed() where process.isRunning { process.interrupt(); process.waitUntilExit() }
    server.stop()
}
/// Stops the cluster and removes what the run wrote: after a run that finished or was interrupted
/// (a failed one keeps its scratch folder for a look).
func stopClusterAndRemoveScratch() {
    stopCluster()
    try? FileManager.default.removeItem(at: scratch)
}
defer { stopCluster() }
// Interrupted (Ctrl-C, SIGTERM): the cluster stops with the benchmark, not after it.
let interruptions = [SIGINT, SIGTERM].map { number in
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler {
        stopClusterAndRemoveScratch()
        note("interrupted: the coordinator and the workers are stopped")
        exit(128 + number)
    }
    source.resume()
    return source
}

let client = try ClusterClient(endpoint: clientEndpoint)
var connected = 0
for _ in 0..<100 {
    connected = (try? await client.status(timeout: 2).workers.count) ?? 0
    if connected == options.workers { break }
    try await Task.sleep(nanoseconds: 100_000_000)
}
guard connected == options.workers else {
    note("only \(connected) of \(options.workers) workers joined; logs in \(logs.path)")
    stopCluster()
    exit(1)
}
note("cluster up: coordinator and \(options.workers) workers over TCP; logs in \(logs.path)")

let manifest = try ManifestParser().parse(contentsOf: URL(fileURLWithPath: "samples/scroll/photos-500.json"))
/// A viewport-mode job of the manifest's photos, `copies` times over (each copy its own URLs).
func submitJob(out: String, copies: Int = 1) async throws -> SubmittedJob {
    var submit = SubmitJob()
    submit.label = "photos-500.json"
    submit.outputDir = scratch.appendingPathComponent("out-\(out)").path
    // Runs of the benchmark reuse their directories.
    submit.replaceOutputs = true
    submit.filters = [.with { $0.name = "sepia" }]
    submit.viewportMode = true
    submit.viewport = .with { $0.visibleStart = 0; $0.visibleEnd = 9; $0.prefetch = UInt32(options.prefetch) }
    submit.photos = (0..<copies).flatMap { copy in
        manifest.entries.map { entry in
            .with {
                $0.name = copy == 0 ? entry.name : "\(entry.name)-\(copy)"
                $0.url = entry.url.replacingOccurrences(of: "http://127.0.0.1:8765", with: server.baseURL) + (copy == 0 ? "" : "&copy=\(copy)")
            }
        }
    }
    return try await client.submit(submit)
}

// 1. Cancel latency over many settled viewport changes. Each change wants at most 10 visible
// and 2 × prefetch photos; the job holds more photos than all the changes can want, so it never
// finishes while they run (a finished job refuses viewport changes).
let latencyCopies = max(
    options.changes * (10 + 2 * options.prefetch) / manifest.entries.count + 1,
    (options.jobPhotos + manifest.entries.count - 1) / manifest.entries.count)
let latencyJob = try await submitJob(out: "latency", copies: latencyCopies)
let lastStart = latencyCopies * manifest.entries.count - 10
var generator = SystemRandomNumberGenerator()
for change in 0..<options.changes {
    let start = Int.random(in: 0...lastStart, using: &generator)
    try await client.setViewport(job: latencyJob.id, visible: start...(start + 9), prefetch: options.prefetch)
    try await Task.sleep(nanoseconds: 15_000_000)
    if change % 50 == 49 { note("latency: \(change + 1)/\(options.changes) viewport changes") }
}
try await Task.sleep(nanoseconds: 300_000_000)
let latencies = try await client.status(job: latencyJob.id).jobs.first?.controlAckMs ?? []
try await client.cancel(job: latencyJob.id)

// 2 and 3. The fast fling trace.
let trace = try ScrollTrace.parse(contentsOf: URL(fileURLWithPath: "samples/scroll/fast-fling.trace"))
let flingJob = try await submitJob(out: "fling")
let doneAt = LockedBox<[Int: Date]>([:])
let follower = Task {
    for await event in flingJob.events {
        if case .photo(let photo) = event.body, photo.state == .done {
            doneAt.withLock { $0[Int(photo.index)] = $0[Int(photo.index)] ?? Date() }
        }
    }
}
let started = Date()
var settles: [(at: Date, visible: ClosedRange<Int>, alreadyDone: Set<Int>)] = []
for event in trace {
    let wait = Double(event.timeMs) / 1000 - Date().timeIntervalSince(started)
    if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000)) }
    let done = Set(doneAt.current.keys)
    let sentAt = Date()
    try await client.setViewport(job: flingJob.id, visible: event.visible, prefetch: options.prefetch, scrolling: event.scrolling)
    if !event.scrolling { settles.append((sentAt, event.visible, done)) }
}
note("fling trace replayed: \(trace.count) events in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
try await Task.sleep(nanoseconds: 3_000_000_000)
let fling = try await client.status(job: flingJob.id).jobs.first!
try await client.cancel(job: flingJob.id)
follower.cancel()
let finished = doneAt.current
let firstVisible: [Double] = settles.compactMap { settle in
    let fresh = settle.visible.filter { !settle.alreadyDone.contains($0) }
    let times = fresh.compactMap { finished[$0] }.filter { $0 >= settle.at }
    guard !fresh.isEmpty, let first = times.min() else { return nil }
    return first.timeIntervalSince(settle.at) * 1000
}
client.close()

// Report.
let loadAtEnd = loadAverage()
let wastedBytes = fling.bytesDownloaded == 0 ? 0 : Double(fling.bytesWasted) / Double(fling.bytesDownloaded) * 100
let wastedPixels = fling.pixelsProcessed == 0 ? 0 : Double(fling.pixelsWasted) / Double(fling.pixelsProcessed) * 100
func spread(_ values: [Double], _ format: String) -> String {
    [percentile(values, 0.5), percentile(values, 0.99), values.max() ?? .nan].map { String(format: format, $0) }.joined(separator: " / ")
}
let rows: [(String, String)] = [
    ("workers (processes, TCP loopback)", "\(options.workers)"),
    ("latency job", "\(latencyCopies * manifest.entries.count) photos, journal \(options.state ? "on (--state)" : "off")"),
    ("stage / writer thread priority", "\(options.stagePriority ?? "default") / \(options.writerPriority ?? "default")"),
    ("cancel latency p50 / p99 / max (arrival → last ack)", spread(latencies, "%.2f") + " ms"),
    ("viewport changes measured", "\(latencies.count) of \(options.changes)"),
    ("fast fling: bytes downloaded", "\(fling.bytesDownloaded)"),
    ("fast fling: wasted bytes", String(format: "%llu (%.1f%%)", fling.bytesWasted, wastedBytes)),
    ("fast fling: pixels processed", "\(fling.pixelsProcessed)"),
    ("fast fling: wasted pixels", String(format: "%llu (%.1f%%)", fling.pixelsWasted, wastedPixels)),
    ("settle → first newly visible done p50 / p99 / max", spread(firstVisible, "%.1f") + " ms"),
    ("settles measured", "\(firstVisible.count) of \(settles.count)"),
    ("load average (1 min) at start / end", "\(loadAtStart) / \(loadAtEnd)"),
]
let width = rows.map(\.0.count).max() ?? 0
var markdown = "| figure | value |\n|---|---|\n"
for (name, value) in rows {
    print(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
    markdown += "| \(name) | \(value) |\n"
}
func summary(_ values: [Double]) -> [String: Any] {
    ["p50": percentile(values, 0.5), "p99": percentile(values, 0.99), "max": values.max() ?? .nan, "samples": values.count]
}
try FileManager.default.createDirectory(atPath: options.out, withIntermediateDirectories: true)
try markdown.write(toFile: "\(options.out)/\(options.name).md", atomically: true, encoding: .utf8)
let json: [String: Any] = [
    "workers": options.workers,
    "latency_job_photos": latencyCopies * manifest.entries.count,
    "journal": options.state,
    "stage_priority": options.stagePriority ?? "default",
    "writer_priority": options.writerPriority ?? "default",
    "cancel_latency_ms": summary(latencies),
    "fast_fling": [
        "bytes_downloaded": fling.bytesDownloaded, "bytes_wasted": fling.bytesWasted,
        "pixels_processed": fling.pixelsProcessed, "pixels_wasted": fling.pixelsWasted,
    ],
    "settle_to_first_visible_ms": summary(firstVisible),
    "load_average": ["start": loadAtStart, "end": loadAtEnd],
]
try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]).write(to: URL(fileURLWithPath: "\(options.out)/\(options.name).json"))
note("wrote \(options.out)/\(options.name).md and \(options.name).json")
stopClusterAndRemoveScratch()
