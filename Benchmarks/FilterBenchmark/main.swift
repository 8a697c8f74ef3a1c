import Foundation
import PhotoClusterCore

// Filter benchmark: each built-in filter on a 12-megapixel image (median of several runs, one
// core), and how soon a cancel stops a running blur. Usage: filter-benchmark [--runs N]

let arguments = CommandLine.arguments
let runs = arguments.firstIndex(of: "--runs").flatMap { Int(arguments[$0 + 1]) } ?? 5
let width = 4000, height = 3000

func makeImage() -> RGBAImage {
    let image = RGBAImage(width: width, height: height)!
    for y in 0..<height {
        let row = image.pixels + y * width * 4
        for x in 0..<width {
            row[x * 4] = UInt8(x & 255); row[x * 4 + 1] = UInt8(y & 255); row[x * 4 + 2] = UInt8((x ^ y) & 255); row[x * 4 + 3] = 255
        }
    }
    return image
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let source = makeImage()
let registry = FilterRegistry.builtIn
let specs = ["sepia", "grayscale", "brightness:brightness=0.1,contrast=1.2", "blur:sigma=2", "sharpen", "vignette", "fog",
             "posterize", "resize:width=1024,height=1024", "rotate:degrees=90", "flip"]
print("filter".padding(toLength: 40, withPad: " ", startingAt: 0) + "  MP/s (one core, 12 MP, median of \(runs))")
for spec in specs {
    let filter = try registry.resolve(spec)
    var seconds: [Double] = []
    for _ in 0..<runs {
        let image = source.copy()!
        let start = Date()
        _ = try filter.stage.apply(to: image, parameters: filter.parameters) { false }
        seconds.append(Date().timeIntervalSince(start))
    }
    print(spec.padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "  %.0f", Double(width * height) / 1e6 / median(seconds)))
}

// Cancel latency: a blur is cancelled from another thread while it runs.
let blur = try registry.resolve("blur:sigma=2")
var latencies: [Double] = []
for _ in 0..<runs {
    let image = source.copy()!
    let cancelledAt = LockedBox<Date?>(nil)
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) { cancelledAt.withLock { $0 = Date() } }
    do {
        _ = try blur.stage.apply(to: image, parameters: blur.parameters) { cancelledAt.current != nil }
    } catch is FilterCancelled {
        if let at = cancelledAt.current { latencies.append(Date().timeIntervalSince(at) * 1000) }
    }
}
print(String(format: "blur sigma=2 on 12 MP: cancel → stopped, median %.2f ms, worst %.2f ms (%d runs)", median(latencies), latencies.max() ?? .nan, latencies.count))
