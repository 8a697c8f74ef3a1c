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
let runs = arguments.firstIndex(of: "--runs").flatMap { Int(arguments[$0 + 1]) } ?? 15
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

/// Median milliseconds of `body` over `runs` (after one run to warm up).
func time(_ body: () throws -> RGBAImage) rethrows -> Double {
    _ = try body()
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return median(samples)
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

print("plugin filter 'invert' on a shared (cached) photo, median of \(runs) runs, milliseconds")
print("photo        in process   in a host   hand-off   per MP    two filters: 2 hand-offs / 1")
for (label, width, height) in [("0.4 MP", 730, 548), ("3 MP", 2000, 1500), ("12 MP", 4000, 3000)] {
    let photo = image(width: width, height: height)
    let megapixels = Double(width * height) / 1e6
    // A cached photo is shared: in the process the filter works on a copy, in a host on its copy.
    let local = try time { try invert.stage.apply(toCopyOf: photo, parameters: invert.parameters) { false } }
    let remote = try time { try pool.run([call], on: photo, mayOverwrite: false, limit: 60) { false } }
    let twoTrips = try time {
        let once = try pool.run([call], on: photo, mayOverwrite: false, limit: 60) { false }
        return try pool.run([call], on: once, mayOverwrite: true, limit: 60) { false }
    }
    let oneTrip = try time { try pool.run([call, call], on: photo, mayOverwrite: false, limit: 60) { false } }
    print(
        label.padding(toLength: 13, withPad: " ", startingAt: 0)
            + String(format: "%8.3f   %9.3f   %8.3f   %6.3f    %.3f / %.3f", local, remote, remote - local, (remote - local) / megapixels, twoTrips, oneTrip))
}
