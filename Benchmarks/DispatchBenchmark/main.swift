import Foundation
import PhotoClusterClient
import PhotoClusterProto
import PhotoClusterTransport

// Coordinator capacity: one `cluster coordinator` process, many simulated workers (DEALER
// sockets in this process that take graphs and answer at once with a tiny result), and a job
// of N photos. Prints photo graphs per second dispatched and tracked end to end (submit →
// every result written → summary), and the coordinator's peak memory.
// Usage: dispatch-benchmark [--cluster PATH] [--workers N] [--credit N] [--photos N[,N...]]
//                           [--events counts|every-photo] [--outputs workers|coordinator]
//                           [--state DIR|postgres] [--summary unsuccessful|every-photo]
// `--outputs workers` (the default) has the job's outputs stored by the workers in a shared
// directory, as `cluster submit --out-shared` does: the simulated workers say where each one is
// and send no bytes, and the coordinator writes only index.json. `--outputs coordinator` has
// each result's bytes sent to the coordinator, which writes every file itself. `--state DIR`
// has the coordinator keep its journal, as a production one does, in a new directory under DIR;
// `--state postgres` runs each size twice, with the journal in SQLite (under the temporary
// directory) and in a throwaway PostgreSQL server (scripts/throwaway-postgres, on loopback; run
// from the repository's root), for the two figures side by side.
// The client asks for the job's counts, as `cluster submit` does; `--events every-photo` has it
// hear of every photo as `cluster watch` does (two more messages a photo for the coordinator).
// Its summary lists the photos that did not succeed, as `cluster submit` asks for a large job;
// `--summary every-photo` has it list every photo (megabytes for 100,000 photos).
// Figures are noisy while anything else runs: each row carries the load average it ran under.

var clusterPath = ".build/release/cluster"
var workerCount = 1000
var credit: UInt32 = 4
var events = EventDetail.counts
var sizes = [10_000, 100_000]
var workersStoreOutputs = true
var stateRoot: String?
var summaryDetail = SummaryDetail.unsuccessful
var rest = CommandLine.arguments.dropFirst()
while let flag = rest.popFirst() {
    let value = rest.popFirst() ?? ""
    switch flag {
    case "--cluster": clusterPath = value
    case "--workers": workerCount = Int(value) ?? workerCount
    case "--credit": credit = UInt32(value) ?? credit
    case "--events": events = value == "every-photo" ? .everyPhoto : .counts
    case "--photos": sizes = value.split(separator: ",").compactMap { Int($0) }
    case "--outputs": workersStoreOutputs = value != "coordinator"
    case "--state": stateRoot = value
    case "--summary": summaryDetail = value == "every-photo" ? .everyPhoto : .unsuccessful
    default:
        FileHandle.standardError.write(Data("unknown option \(flag)\n".utf8))
        exit(2)
    }
}
func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
/// The journals each size runs with.
let journals: [BenchmarkJournal]
var postgresServer: ThrowawayServer?
switch stateRoot {
case nil: journals = [.off]
case "postgres":
    do {
        postgresServer = try ThrowawayServer()
    } catch {
        note("\(error): --state postgres needs PostgreSQL's server binaries (the postgresql package; scripts/install-test-tools)")
        exit(1)
    }
    journals = [.sqlite(root: NSTemporaryDirectory()), .postgres(postgresServer!)]
case let root?: journals = [.sqlite(root: root)]
}

guard FileManager.default.isExecutableFile(atPath: clusterPath) else {
    note("\(clusterPath) is missing: build it with `swift build -c release --product cluster` (or run `make bench`)")
    exit(1)
}

/// The one-minute load average, from /proc: a figure taken while other work runs is noisy.
func loadAverage() -> Double {
    Double((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first ?? "") ?? .nan
}

/// Peak resident memory of a process, from /proc.
func peakMemoryMB(_ pid: Int32) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return .nan }
    return (Double(line.split(separator: " ").dropFirst().first.map(String.init) ?? "") ?? .nan) / 1024
}

/// CPU seconds the coordinator's loop thread (named "coordinator") has used, from /proc: the
/// share of a core it is busy tells how far the coordinator itself is from being the limit.
func loopCPUSeconds(_ pid: Int32) -> Double {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    for task in tasks {
        guard (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?.hasPrefix("coordinator") == true,
            let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { continue }
        // Fields after the command name: state is field 3, utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
    return .nan
}

/// The simulated workers: every socket on one thread, answering each graph at once.
final class SimulatedWorkers: @unchecked Sendable {
    private let context: ZMQContext
    private var sockets: [ZMQSocket] = []
    private let stopFlag = LockedBoxFlag()
    private var thread: Thread?
    private(set) var answered = 0
    /// Graphs each simulated worker takes at once.
    private let credit: UInt32

    init(count: Int, credit: UInt32, endpoint: String) throws {
        self.credit = credit
        context = try ZMQContext(ioThreads: 1, maxSockets: Int32(count + 16))
        for index in 0..<count {
            let socket = try ZMQSocket(context: context, kind: .dealer)
            try socket.setRoutingID("sim-\(index)")
            try socket.connect(endpoint)
            sockets.append(socket)
        }
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.stackSize = 4 << 20
        self.thread = thread
        thread.start()
    }

    func stop() {
        stopFlag.set()
        while thread?.isFinished == false { usleep(10_000) }
        for socket in sockets { socket.close() }
        context.terminate()
    }

    private func send(_ socket: ZMQSocket, _ body: Photocluster_V1_WorkerToCoordinator.OneOf_Body) {
        var message = Photocluster_V1_WorkerToCoordinator()
        message.body = body
        try? socket.send([Envelope.encode(message)], dontWait: true)
    }

    private func run() {
        for socket in sockets {
            send(socket, .hello(.with {
                $0.protocolVersion = 1
                $0.workerID = ""
                $0.host = "simulated"
                $0.concurrency = 1
                $0.filters = [.with { $0.name = "sepia"; $0.version = "1" }]
            }))
            send(socket, .credit(.with { $0.grant = credit }))
        }
        var poller = ZMQPoller(sockets.map { .socket($0) })
        var lastBeat = Date()
        let photo = Data(repeating: 0xAB, count: 64)
        while !stopFlag.isSet {
            guard let ready = try? poller.poll(timeoutMs: 100) else { continue }
            for (index, isReady) in ready.enumerated() where isReady {
                let socket = sockets[index]
                while let frames = try? socket.receive(dontWait: true) {
                    guard let message = Envelope.decode(Photocluster_V1_CoordinatorToWorker.self, from: frames.last ?? Data()) else { continue }
                    switch message.body {
                    case .assign(let assign): answer([assign.graph], on: socket, photo: photo)
                    case .assignBatch(let batch): answer(batch.graphs, on: socket, photo: photo)
                    case .pleaseRegister:
                        send(socket, .hello(.with { $0.protocolVersion = 1; $0.concurrency = 1; $0.filters = [.with { $0.name = "sepia" }] }))
                        send(socket, .credit(.with { $0.grant = credit }))
                    default: break
                    }
                }
            }
            if Date().timeIntervalSince(lastBeat) > 0.5 {
                lastBeat = Date()
                for socket in sockets { send(socket, .heartbeat(.with { $0.sequence = 1 })) }
            }
        }
    }

    /// Every graph done at once, told as a real worker tells it: one batch of results (each
    /// photo a frame of its own), giving the credit back.
    /// A graph with an output place is stored "there" (nothing is written: the figure is the
    /// coordinator's), and its result says where, with no photo.
    private func answer(_ graphs: [Photocluster_V1_PhotoGraph], on socket: ZMQSocket, photo: Data) {
        var message = Photocluster_V1_WorkerToCoordinator()
        var photos: [Data] = []
        message.reports.reports = graphs.map { graph in
            .with {
                $0.result = .with {
                    $0.jobID = graph.jobID
                    $0.photoIndex = graph.photoIndex
                    $0.attempt = graph.attempt
                    $0.format = .jpeg
                    $0.width = 1
                    $0.height = 1
                    if graph.hasOutputPlace {
                        let directory = graph.outputPlace.sharedDirectory
                        $0.storedAt = graph.outputStems.map { "\(directory)/\($0).jpg" }
                    } else {
                        $0.photoInFrame = true
                        photos.append(photo)
                    }
                }
            }
        }
        message.reports.credit = UInt32(graphs.count)
        try? socket.send([Envelope.encode(message)] + photos, dontWait: true)
        answered += graphs.count
    }
}

/// A flag another thread may set.
final class LockedBoxFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}

/// The coordinator running now: stopped with the benchmark when it is interrupted (Ctrl-C or
/// SIGTERM), so no coordinator outlives the run that started it.
final class RunningCoordinator: @unchecked Sendable {
    private let lock = NSLock()
    private var process: Process?
    private var sources: [DispatchSourceSignal] = []

    func set(_ process: Process?) { lock.lock(); self.process = process; lock.unlock() }

    func stopOnInterrupt() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                lock.lock()
                let running = process
                lock.unlock()
                if let running, running.isRunning {
                    running.terminationHandler = nil  // its end is expected now
                    running.interrupt()
                    running.waitUntilExit()
                }
                note("interrupted: the coordinator is stopped")
                postgresServer?.stop()
                exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
    }
}
let runningCoordinator = RunningCoordinator()
runningCoordinator.stopOnInterrupt()

/// A coordinator on two free ports. Ports are taken below Linux's ephemeral range (32768 up),
/// where the simulated workers' own connections would take them; one that is in use all the
/// same makes the coordinator exit at once, and another pair is tried.
/// `stopping`: set before the benchmark stops the coordinator itself.
func startCoordinator(outputs scratch: URL, state: String?, stopping: LockedBoxFlag) throws -> (Process, Int) {
    for _ in 0..<10 {
        let port = Int.random(in: 20_000...30_000)
        let coordinator = Process()
        coordinator.executableURL = URL(fileURLWithPath: clusterPath)
        coordinator.arguments = [
            "coordinator", "--insecure", "--bind", "tcp://127.0.0.1:\(port)", "--client-bind", "tcp://127.0.0.1:\(port + 1)", "--metrics-bind", "off", "--http", "off",
            "--output-root", scratch.path, "--shared-root", scratch.path,
        ]
        if let state { coordinator.arguments! += ["--state", state] }
        // DISPATCH_BENCH_COORDINATOR_LOG=FILE keeps the coordinator's log (at debug level) there.
        if let log = ProcessInfo.processInfo.environment["DISPATCH_BENCH_COORDINATOR_LOG"],
            FileManager.default.createFile(atPath: log, contents: nil), let handle = FileHandle(forWritingAtPath: log) {
            coordinator.arguments! += ["--log-level", "debug"]
            coordinator.standardError = handle
        } else {
            coordinator.standardError = FileHandle.nullDevice
        }
        try coordinator.run()
        usleep(500_000)
        if coordinator.isRunning {
            // From here on a coordinator that dies ends the benchmark: nothing would answer.
            coordinator.terminationHandler = { process in
                guard !stopping.isSet else { return }
                note("the coordinator exited (status \(process.terminationStatus)) during the run: DISPATCH_BENCH_COORDINATOR_LOG=FILE keeps its log")
                exit(1)
            }
            runningCoordinator.set(coordinator)
            return (coordinator, port)
        }
        note("the coordinator did not start on ports \(port)-\(port + 1) (in use?): trying others")
    }
    note("the coordinator did not start: run it by hand (\(clusterPath) coordinator --insecure) to see why")
    exit(1)
}

/// CPU seconds a whole process has used (every thread), from /proc.
func processCPUSeconds(_ pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return .nan }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

var rows: [String] = []
var figures: [[String: Any]] = []  // the same rows for bench/run's report
var run = 0
for photos in sizes {
for journal in journals {
    run += 1
    let state = try journal.state(for: "\(getpid())_\(run)")
    // Outputs go to memory when it can (/dev/shm): the figure is the coordinator, not the disk.
    let scratch = ProcessInfo.processInfo.environment["DISPATCH_BENCH_DISK"] == nil && FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
    let out = scratch.appendingPathComponent("dispatch-bench-\(getpid())-\(photos)")
    let stopping = LockedBoxFlag()
    let (coordinator, port) = try startCoordinator(outputs: scratch, state: state, stopping: stopping)
    let workers = try SimulatedWorkers(count: workerCount, credit: credit, endpoint: "tcp://127.0.0.1:\(port)")
    workers.start()
    let client = try ClusterClient(endpoint: "tcp://127.0.0.1:\(port + 1)")
    var joined = 0
    for _ in 0..<300 {
        joined = (try? await client.status(timeout: 5).workers.count) ?? 0
        if joined == workerCount { break }
        try await Task.sleep(nanoseconds: 100_000_000)
    }
    note("\(photos) photos, journal \(journal.name): \(joined) simulated workers joined")
    var submit = SubmitJob()
    submit.label = "dispatch-\(photos)"
    if workersStoreOutputs {
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        submit.outputPlace = .with { $0.sharedDirectory = out.path }
    } else {
        submit.outputDir = out.path
    }
    // Runs of the benchmark reuse their directories.
    submit.replaceOutputs = true
    submit.filters = [.with { $0.name = "sepia" }]
    submit.events = events
    submit.summary = summaryDetail
    submit.photos = (0..<photos).map { index in .with { $0.name = "p\(index)"; $0.url = "http://127.0.0.1:9/p\(index).jpg" } }
    let started = Date()
    let loopBefore = loopCPUSeconds(coordinator.processIdentifier)
    let coordinatorBefore = processCPUSeconds(coordinator.processIdentifier)
    let job = try await client.submit(submit, timeout: 60)
    let acceptedAt = Date()
    var summary: JobSummary?
    var lastCountsAt = Date()
    for await event in job.events {
        switch event.body {
        case .finished(let finished): summary = finished
        case .progress: lastCountsAt = Date()
        default: break
        }
    }
    let phases = (accepted: acceptedAt.timeIntervalSince(started), lastCounts: lastCountsAt.timeIntervalSince(started))
    note(String(format: "%d photos: accepted after %.3f s, last counts at %.3f s, the summary at %.3f s", photos, phases.accepted, phases.lastCounts, Date().timeIntervalSince(started)))
    let elapsed = Date().timeIntervalSince(started)
    let loopBusy = (loopCPUSeconds(coordinator.processIdentifier) - loopBefore) / elapsed
    let coordinatorBusy = (processCPUSeconds(coordinator.processIdentifier) - coordinatorBefore) / elapsed
    let memory = peakMemoryMB(coordinator.processIdentifier)
    client.close()
    workers.stop()
    stopping.set()
    coordinator.interrupt()
    coordinator.waitUntilExit()
    try? FileManager.default.removeItem(at: out)
    if let state { journal.remove(state) }
    let succeeded = Int(summary?.progress.succeeded ?? 0)
    let rate = Double(succeeded) / elapsed
    let load = loadAverage()
    let bytesPerPhoto = memory * 1024 * 1024 / Double(photos)
    let row = "| \(photos) | \(journal.name) " + String(
        format: "| %d | %d | %.2f s | %.0f | %.0f%% | %.0f | %.0f%% | %.0f MB | %.0f B | %.1f |", joined, succeeded, elapsed, rate, loopBusy * 100,
        rate / loopBusy, coordinatorBusy * 100, memory, bytesPerPhoto, load)
    note(row)
    rows.append(row)
    figures.append([
        "photos": photos, "journal": journal.name, "simulated_workers": joined, "credit": Int(credit), "events": events == .counts ? "counts" : "every-photo", "done": succeeded, "elapsed_seconds": elapsed,
        "graphs_per_second": rate, "loop_busy": loopBusy, "coordinator_cpu": coordinatorBusy, "loop_limit_graphs_per_second": rate / loopBusy,
        "accepted_seconds": phases.accepted, "last_counts_seconds": phases.lastCounts,
        "coordinator_peak_rss_mb": memory, "coordinator_peak_rss_bytes_per_photo": bytesPerPhoto, "load_average_1min": load,
    ])
}
}
postgresServer?.stop()
// bench/run puts these figures in its report.
let results = URL(fileURLWithPath: "bench/results")
try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
let outputs = (workersStoreOutputs ? "workers, " : "coordinator, ") + (ProcessInfo.processInfo.environment["DISPATCH_BENCH_DISK"] == nil ? "tmpfs" : "disk")
let summaryName = summaryDetail == .everyPhoto ? "every photo" : "unsuccessful photos"
try JSONSerialization.data(withJSONObject: ["outputs_on": outputs, "journal": stateRoot ?? "off", "summary_lists": summaryName, "rows": figures],
                           options: [.prettyPrinted, .sortedKeys]).write(to: results.appendingPathComponent("dispatch.json"))
note("wrote bench/results/dispatch.json")
// "loop busy": the coordinator's loop thread's share of one core during the job; "loop limit":
// graphs/s it would reach busy all the time (the rate divided by that share); "coordinator CPU":
// every thread of the coordinator process (loop, ZeroMQ, writers), in shares of one core.
print("outputs stored by: \(outputs); credit \(credit) per simulated worker; journal: \(stateRoot.map { $0 == "postgres" ? "SQLite and PostgreSQL (throwaway server), each size with both" : "in \($0) (--state)" } ?? "off"); the summary lists \(summaryName)")
print("| photos | journal | simulated workers | done | elapsed | graphs/s end to end | loop busy | loop limit, graphs/s | coordinator CPU | coordinator peak RSS | per photo | load average |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for row in rows { print(row) }
