import Foundation
import PhotoClusterClient
import PhotoClusterProto
import PhotoClusterTransport

// A flood of viewport changes against a `cluster coordinator` process: `--clients` raw client
// connections (default 3) each send `--changes` viewport changes (default 50,000) as fast as
// the connection takes them, while another client asks `cluster status` over and over. Prints
// how many changes were taken and refused, status latency at p50/p99/max during the flood, and
// the coordinator's RSS before, at its peak, and a few seconds after.
// Usage: ViewportFloodBenchmark [--cluster PATH] [--clients N] [--changes N] [--limit N]
// (`--limit`: the coordinator's --max-viewport-changes-per-second)

func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

var cluster = ".build/release/cluster", clients = 3, changes = 50_000
var limit: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let flag = arguments.next() {
    guard let value = arguments.next() else { break }
    switch flag {
    case "--cluster": cluster = value
    case "--clients": clients = Int(value) ?? clients
    case "--changes": changes = Int(value) ?? changes
    case "--limit": limit = value
    default: note("unknown option \(flag)"); exit(2)
    }
}
guard FileManager.default.isExecutableFile(atPath: cluster) else {
    note("\(cluster) is missing: build it with `swift build -c release --product cluster`")
    exit(1)
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// `VmRSS` or `VmHWM` of a process, in MiB.
func memory(_ pid: Int32, _ field: String) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
        let kB = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return .nan }
    return kB / 1024
}

let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("viewport-flood-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
let port = Int.random(in: 20_000...30_000)
let clientEndpoint = "tcp://127.0.0.1:\(port + 1)"
let coordinator = Process()
coordinator.executableURL = URL(fileURLWithPath: cluster)
coordinator.arguments = ["coordinator", "--insecure", "--bind", "tcp://127.0.0.1:\(port)", "--client-bind", clientEndpoint,
                         "--http", "off", "--metrics-bind", "off", "--output-root", scratch.path]
    + (limit.map { ["--max-viewport-changes-per-second", $0] } ?? [])
let log = scratch.appendingPathComponent("coordinator.log")
_ = FileManager.default.createFile(atPath: log.path, contents: nil)
coordinator.standardError = try FileHandle(forWritingTo: log)
coordinator.standardOutput = coordinator.standardError
try coordinator.run()
defer { if coordinator.isRunning { coordinator.interrupt(); coordinator.waitUntilExit() } }

let client = try ClusterClient(endpoint: clientEndpoint)
var up = false
for _ in 0..<100 where !up {
    up = (try? await client.status(timeout: 1)) != nil
    if !up { try await Task.sleep(nanoseconds: 100_000_000) }
}
guard up else { note("the coordinator did not answer; its log: \(log.path)"); exit(1) }
let job = try await client.submit(.with { submit in
    submit.outputDir = "flood"
    submit.filters = [.with { $0.name = "sepia" }]
    submit.viewportMode = true
    submit.viewport = .with { $0.visibleStart = 0; $0.visibleEnd = 9 }
    submit.photos = (0..<1_000).map { index in .with { $0.name = "p\(index)"; $0.url = "http://127.0.0.1:9/p\(index).jpg" } }
}).id
try await Task.sleep(nanoseconds: 1_000_000_000)
let rssBefore = memory(coordinator.processIdentifier, "VmRSS")

/// One flooding client on its own thread: sends every change, then reads every answer.
final class Flooder: @unchecked Sendable {
    // Touched by its own thread only until `done` is signalled.
    var statuses = 0, refusals = 0
    let done = DispatchSemaphore(value: 0)

    func run(number: Int, endpoint: String, job: String, changes: Int) {
        Thread {
            defer { self.done.signal() }
            guard let context = try? ZMQContext(), let socket = try? ZMQSocket(context: context, kind: .dealer) else { return }
            defer { socket.close(); context.terminate() }
            try? socket.setLinger(milliseconds: 0)
            try? socket.connect(endpoint)
            func read() {
                while let frames = try? socket.receive(dontWait: true) {
                    switch frames.last.flatMap({ Envelope.decode(Photocluster_V1_CoordinatorToClient.self, from: $0) })?.body {
                    case .status?: self.statuses += 1
                    case .error?: self.refusals += 1
                    default: break
                    }
                }
            }
            var index = 0
            while index < changes {
                let request = Photocluster_V1_ClientToCoordinator.with {
                    $0.requestID = UInt64(index + 1)
                    $0.viewport = .with { change in
                        change.jobID = job
                        let start = UInt32((index * 7 + number * 101) % 990)
                        change.viewport = .with { $0.visibleStart = start; $0.visibleEnd = start + 9 }
                    }
                }
                if (try? socket.send([Envelope.encode(request)])) != nil { index += 1 } else { read(); usleep(100) }
            }
            let deadline = Date().addingTimeInterval(120)
            while self.statuses + self.refusals < changes, Date() < deadline { read(); usleep(1_000) }
        }.start()
    }
}

let started = Date()
let flooders = (0..<clients).map { _ in Flooder() }
for (number, flooder) in flooders.enumerated() { flooder.run(number: number, endpoint: clientEndpoint, job: job, changes: changes) }
let finished = LockedFlag()
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}
Thread {
    for flooder in flooders { flooder.done.wait() }
    finished.set()
}.start()
var latencies: [Double] = []
var peak = rssBefore
while !finished.isSet {
    let asked = Date()
    _ = try? await client.status(job: job, timeout: 10)
    latencies.append(Date().timeIntervalSince(asked) * 1000)
    peak = max(peak, memory(coordinator.processIdentifier, "VmRSS"))
    try await Task.sleep(nanoseconds: 20_000_000)
}
let floodSeconds = Date().timeIntervalSince(started)
try await Task.sleep(nanoseconds: 3_000_000_000)
let rssAfter = memory(coordinator.processIdentifier, "VmRSS")
let statuses = flooders.map(\.statuses).reduce(0, +), refusals = flooders.map(\.refusals).reduce(0, +)
print("viewport flood: \(clients) clients × \(changes) changes in \(String(format: "%.1f", floodSeconds)) s; \(statuses) taken, \(refusals) refused (the limit)")
print(String(format: "cluster status during it (%d asks): p50 %.1f ms, p99 %.1f ms, max %.1f ms",
             latencies.count, percentile(latencies, 0.5), percentile(latencies, 0.99), latencies.max() ?? .nan))
print(String(format: "coordinator RSS: %.0f MiB before, %.0f MiB at its peak, %.0f MiB 3 s after (%+.0f MiB)", rssBefore, peak, rssAfter, rssAfter - rssBefore))
