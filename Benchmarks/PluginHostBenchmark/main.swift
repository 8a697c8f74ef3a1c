import Foundation
import PhotoClusterCore
import PhotoClusterPluginHost
import PhotoClusterPlugins

// Plugin host benchmark: what running a plugin filter in a plugin host (a child process) costs
// over running it in the worker's own process, per photo and per megapixel, for photos of 0.4,
// 3 and 12 megapixels; and a chain of two plugin filters in one hand-off against two.
// Usage: plugin-host-benchmark [--runs N] [--bin DIR]
// DIR (default: this program's directory) holds the `cluster` binary and the example plugin
// libPhotoClusterExamplePluginC.so (`swift build -c release --product cluster` and
// `--product PhotoClusterExamplePluginC`).

let arguments = CommandLine.arguments
let runs = arguments.firstIndex(of: "--runs").flatMap { Int(arguments[$0 + 1]) } ?? 21
let binDirectory = arguments.firstIndex(of: "--bin").map { URL(fileURLWithPath: arguments[$0 + 1]) }
    ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
let cluster = binDirectory.appendingPathComponent("cluster").path
let library = binDirectory.appendingPathComponent("libPhotoClusterExamplePluginC.so")
for path in [cluster, library.path] where !FileManager.default.fileExists(atPath: path) {
    FileHandle.standardError.write(Data("plugin-host-benchmark: \(path) is missing; build it first (see the usage at the top of main.swift)\n".utf8))
    exit(2)
}

let pluginDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("photocluster-plugin-bench-\(getpid())")
try FileManager.default.createDirectory(at: pluginDirectory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: pluginDirectory) }
try FileManager.default.copyItem(at: library, to: pluginDirectory.appendingPathComponent("example.so"))

// In the process, as workers ran plugins before plugin hosts.
var inProcess = FilterRegistry()
_ = PluginLoader.load(directory: pluginDirectory, into: &inProcess)
// In a plugin host, as workers run them now.
let hosted = PluginCatalog.load(directories: [pluginDirectory], settings: .init(executable: cluster, keepIdle: 1))
guard let pool = hosted.pool else { fatalError("the plugin host did not load the example plugin: \(hosted.report.refused)") }
defer { pool.shutdown() }

func image(width: Int, height: Int) -> RGBAImage {
    let image = FilterPixels.allocate(width: width, height: height)!
    for index in 0..<image.byteCount { image.pixels[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
    return image
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// CPU time used so far by this process (CLOCK_PROCESS_CPUTIME_ID) and by `hosts` (every thread,
/// from /proc/PID/task/TID/schedstat: the scheduler's count, exact for a host that waits for its
/// next request), in nanoseconds.
func cpuNanoseconds(_ hosts: [pid_t]) -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    var total = Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
    for pid in hosts {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                let first = text.split(separator: " ").first, let value = Double(first)
            else { continue }
            total += value
        }
    }
    return total
}

/// Wall and CPU milliseconds (this process and the host) of one call.
func measure(_ hosts: [pid_t], _ body: () throws -> RGBAImage) rethrows -> (wall: Double, cpu: Double) {
    let cpu = cpuNanoseconds(hosts)
    let start = DispatchTime.now().uptimeNanoseconds
    _ = try body()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    return (wall, (cpuNanoseconds(hosts) - cpu) / 1e6)
}

struct Pair {
    var first: Double, second: Double, difference: Double
}

/// `first` and `second` timed in pairs, one right after the other (in turn which goes first),
/// after one run of each to warm up: the medians of each and of their differences, in wall time
/// and in CPU time. A load that changes during the run moves both sides of a pair alike; the CPU
/// time, unlike the wall time, does not count waiting for a busy core.
func paired(_ hosts: [pid_t], _ first: () throws -> RGBAImage, _ second: () throws -> RGBAImage) rethrows -> (wall: Pair, cpu: Pair) {
    _ = try first()
    _ = try second()
    var a: [(wall: Double, cpu: Double)] = [], b: [(wall: Double, cpu: Double)] = []
    for run in 0..<runs {
        if run % 2 == 0 {
            a.append(try measure(hosts, first))
            b.append(try measure(hosts, second))
        } else {
            b.append(try measure(hosts, second))
            a.append(try measure(hosts, first))
        }
    }
    func pair(_ value: ((wall: Double, cpu: Double)) -> Double) -> Pair {
        Pair(first: median(a.map(value)), second: median(b.map(value)), difference: median(zip(a, b).map { value($1) - value($0) }))
    }
    return (pair { $0.wall }, pair { $0.cpu })
}

// Starting a host: spawn, load the plugin, report its filters (what a crash costs the next photo).
var starts: [Double] = []
for _ in 0..<max(5, runs / 2) {
    let start = DispatchTime.now().uptimeNanoseconds
    let loaded = PluginCatalog.load(directories: [pluginDirectory], settings: .init(executable: cluster, keepIdle: 1))
    starts.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    loaded.pool?.shutdown()
}
print(String(format: "starting a plugin host and loading the plugin: median %.1f ms (%d starts)", median(starts), starts.count))

let invert = try inProcess.resolve("invert")
let hostedInvert = try hosted.registry.resolve("invert")
let call = (hostedInvert.stage as! HostedFilterStage).call(hostedInvert.parameters)

let hosts = pool.idlePIDs
print("plugin filter 'invert' on a shared (cached) photo; medians of \(runs) pairs, milliseconds of wall time | of CPU time (this process and the host)")
print("photo      in process     in a host      hand-off       per MP         two filters: 2 hand-offs / 1 (saved)")
func both(_ pair: (wall: Pair, cpu: Pair), _ value: (Pair) -> Double, divide: Double = 1) -> String {
    String(format: "%6.3f|%-6.3f", value(pair.wall) / divide, value(pair.cpu) / divide)
}
for (label, width, height) in [("0.4 MP", 730, 548), ("3 MP", 2000, 1500), ("12 MP", 4000, 3000)] {
    let photo = image(width: width, height: height)
    let megapixels = Double(width * height) / 1e6
    // A cached photo is shared: in the process the filter works on a copy, in a host on its copy.
    let single = try paired(
        hosts, { try invert.stage.apply(toCopyOf: photo, parameters: invert.parameters) { false } },
        { try pool.run([call], on: photo, mayOverwrite: false, limit: 60) { false } })
    let chain = try paired(
        hosts,
        {
            let once = try pool.run([call], on: photo, mayOverwrite: false, limit: 60) { false }
            return try pool.run([call], on: once, mayOverwrite: true, limit: 60) { false }
        },
        { try pool.run([call, call], on: photo, mayOverwrite: false, limit: 60) { false } })
    print(
        label.padding(toLength: 9, withPad: " ", startingAt: 0)
            + [both(single, \.first), both(single, \.second), both(single, \.difference), both(single, \.difference, divide: megapixels)]
                .joined(separator: "  ")
            + "  " + both(chain, \.first) + " / " + both(chain, \.second) + " (" + both(chain, { -$0.difference }) + ")")
}
