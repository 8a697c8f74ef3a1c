import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterDownload
import PhotoClusterImaging

// Pipeline benchmark, the in-process figure of `bench/run`: the worker's stages on photos held in
// memory, decode → filters → encode, through the same public pieces the worker's operations call
// (`ImageCodec.decode`, the built-in `FilterRegistry`, `ImageCodec.encode`), on N threads.
// Like `FilterOperation`, each filter runs on a copy of the decoded image (the worker keeps the
// decoded image in its stage cache): `--copy worker` (the default) copies with `RGBAImage.copy()`
// and filters the copy, as FilterOperation does today; `--copy fused` calls
// `FilterStage.apply(toCopyOf:)`, which point filters do in one pass; `--copy none` filters the
// decoded image itself; `--copy stream` is what the worker does: the chain's trailing point
// filters run inside the encoder, band by band, and any filter before them as with `fused`.
// End to end, the pipeline also does what surrounds those stages in a cluster, minus the
// cluster: `--source URL` downloads every photo of a run from URL/<file name> through the
// worker's libcurl engine (all started when the run starts, as a worker's downloads run ahead
// of its stages; each run with its own query, so nothing is cached), and `--out DIR` writes
// every output with `DurableFile` on writer threads of their own, as the coordinator does.
// `--engine` runs the photos through the worker's own engine instead (`LocalEngine`: its
// operations, queues and downloads, as many graphs at once as a worker's window) — a worker
// without ZeroMQ and a coordinator; it needs `--source` and `--copy stream`, and reports no
// stage seconds.
//
//   PipelineBenchmark pipeline [--filter SPEC]... [--format jpeg|png|keep] [--quality Q]
//                              [--threads N] [--runs R] [--copy worker|fused|none|stream] [--fast-dct]
//                              [--source URL] [--out DIR] [--engine] FILE...
//       prints one JSON object: seconds of each run (wall clock over all photos), megapixels
//       and photos per run, bytes written by the last run, the seconds each stage took in
//       the last run (summed over threads), and which build of the pixel loops ran
//       (`kernels`: avx2 or baseline; PHOTOCLUSTER_KERNELS=baseline forces the baseline).
//   PipelineBenchmark serve DIR
//       serves DIR on loopback with LoopbackHTTP, prints its base URL, and stops when standard
//       input closes (`bench/run` serves the manifests' photos this way).

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data("PipelineBenchmark: \(text)\n".utf8))
    exit(2)
}

struct Options {
    var filters: [String] = []
    var format = "keep"
    var quality = 85
    var threads = 1
    var runs = 5
    var copy = "worker"
    var fastDCT = false
    var engine = false
    var source: String?
    var out: String?
    var files: [String] = []

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments
        while let argument = rest.popFirst() {
            func value() -> String {
                guard let next = rest.popFirst() else { fail("\(argument) needs a value") }
                return next
            }
            switch argument {
            case "--filter": filters.append(value())
            case "--format": format = value()
            case "--quality": quality = Int(value()) ?? quality
            case "--threads": threads = max(1, Int(value()) ?? threads)
            case "--runs": runs = max(1, Int(value()) ?? runs)
            case "--copy": copy = value()
            case "--fast-dct": fastDCT = true
            case "--engine": engine = true
            case "--source": source = value()
            case "--out": out = value()
            default:
                if argument.hasPrefix("--") { fail("unknown option \(argument)") }
                files.append(argument)
            }
        }
        guard !files.isEmpty else { fail("no input files") }
        guard ["keep", "jpeg", "png"].contains(format) else { fail("--format is jpeg, png or keep") }
        guard ["worker", "fused", "none", "stream"].contains(copy) else { fail("--copy is worker, fused, none or stream") }
        guard !engine || (source != nil && copy == "stream") else { fail("--engine needs --source (the engine downloads) and --copy stream (what the worker does)") }
    }
}

/// Seconds spent in each stage, summed over threads.
struct StageTimes {
    var decode = 0.0, copy = 0.0, filter = 0.0, encode = 0.0
    static func + (a: StageTimes, b: StageTimes) -> StageTimes {
        StageTimes(decode: a.decode + b.decode, copy: a.copy + b.copy, filter: a.filter + b.filter, encode: a.encode + b.encode)
    }
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func runPipeline(_ options: Options) throws {
    let inputs = try options.files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    let filters = try options.filters.map { try FilterRegistry.builtIn.resolve($0) }
    var megapixels = 0.0
    for data in inputs {
        let image = try ImageCodec.decode(data).image
        megapixels += Double(image.pixelCount) / 1e6
    }

    // With `stream`, the chain's trailing point filters run inside the encoder, as on a worker.
    let pointTail = options.copy == "stream" ? filters.pointFilterTailStart : filters.count
    let fused = chained(filters[pointTail...].compactMap(\.pixelTransform))

    /// One photo through the worker's stages; returns the encoded bytes and their extension.
    func process(_ data: Data, _ times: inout StageTimes) throws -> (Data, String) {
        var t0 = now()
        let (decoded, inputFormat) = try ImageCodec.decode(data, fastDCT: options.fastDCT)
        var t1 = now()
        times.decode += t1 - t0
        var image = decoded
        for filter in filters[..<pointTail] {
            t0 = now()
            switch options.copy {
            case "worker":
                let input = image.copy()!
                t1 = now()
                times.copy += t1 - t0
                image = try filter.stage.apply(to: input, parameters: filter.parameters) { false }
            case "fused", "stream":
                t1 = t0
                image = try filter.stage.apply(toCopyOf: image, parameters: filter.parameters) { false }
            default:
                t1 = t0
                image = try filter.stage.apply(to: image, parameters: filter.parameters) { false }
            }
            times.filter += now() - t1
        }
        let format: ImageFormat = options.format == "keep" ? inputFormat : ImageFormat(rawValue: options.format)!
        t0 = now()
        let encoded = try ImageCodec.encode(image, as: format, quality: options.quality, fastDCT: options.fastDCT, transform: fused)
        times.encode += now() - t0
        return (encoded, format == .png ? "png" : "jpg")
    }

    // With --engine, the worker's engine downloads; otherwise each run starts all its downloads at once.
    let downloads = options.engine ? nil : options.source.map { (engine: DownloadEngine(limits: DownloadLimits(policy: .loopbackAllowed)), base: $0) }
    let enginePass = options.engine ? EnginePass(threads: options.threads) : nil
    let writers = options.out.map { _ in BlockingWorkThreads(name: "writer", limit: 4) }
    let session = UUID().uuidString.prefix(8)

    var seconds: [Double] = []
    var lastBytes = 0
    var lastTimes = StageTimes()
    for run in 0..<options.runs {
        let next = LockedBox(0)
        let totals = LockedBox((bytes: 0, times: StageTimes(), error: String?.none))
        let outputDirectory = try options.out.map { try makeRunDirectory($0, run: run) }
        /// Writes a photo's output durably on a writer thread, as the coordinator does.
        let write: @Sendable (Int, Data, String) -> Void = { index, encoded, fileExtension in
            guard let writers, let outputDirectory else { return }
            let name = URL(fileURLWithPath: options.files[index]).deletingPathExtension().lastPathComponent
            let destination = outputDirectory.appendingPathComponent("\(index)-\(name).\(fileExtension)", isDirectory: false)
            writers.submit {
                do { try DurableFile.write(encoded, to: destination, tag: "\(run)") } catch {
                    totals.withLock { $0.error = "\(error)" }
                }
            }
        }
        let start = now()
        if let enginePass, let source = options.source {
            let urls = options.files.indices.map { sourceURL(source, file: options.files[$0], query: "\(session)-\(run)-\($0)") }
            do {
                let bytes = try enginePass.run(
                    job: "\(session)-\(run)", urls: urls, filters: filters, format: options.format, quality: options.quality,
                    fastDCT: options.fastDCT
                ) { index, encoded, format in write(index, encoded, format == .png ? "png" : "jpg") }
                totals.withLock { $0.bytes = bytes }
            } catch {
                totals.withLock { $0.error = "\(error)" }
            }
        } else {
            let fetches = downloads.map { source in
                options.files.enumerated().map { index, file in
                    Fetch(engine: source.engine, url: sourceURL(source.base, file: file, query: "\(session)-\(run)-\(index)"))
                }
            }
            DispatchQueue.concurrentPerform(iterations: options.threads) { _ in
                var bytes = 0
                var times = StageTimes()
                var failure: String?
                while true {
                    let index = next.withLock { value -> Int in
                        defer { value += 1 }
                        return value
                    }
                    guard index < inputs.count else { break }
                    do {
                        let (encoded, fileExtension) = try process(fetches?[index].body() ?? inputs[index], &times)
                        bytes += encoded.count
                        write(index, encoded, fileExtension)
                    } catch {
                        failure = "\(options.files[index]): \(error)"
                    }
                }
                totals.withLock {
                    $0.bytes += bytes
                    $0.times = $0.times + times
                    if let failure { $0.error = failure }
                }
            }
        }
        writers?.waitUntilIdle()
        seconds.append(now() - start)
        let result = totals.current
        if let error = result.error { fail(error) }
        lastBytes = result.bytes
        lastTimes = result.times
        // Outside the timed part: a run's outputs go before the next run writes its own.
        if let outputDirectory { try? FileManager.default.removeItem(at: outputDirectory) }
    }
    enginePass?.engine.shutdown()
    downloads?.engine.shutdown()
    writers?.stop()
    let object: [String: Any] = [
        "megapixels": megapixels, "photos": inputs.count, "seconds": seconds, "bytes_out": lastBytes,
        "kernels": KernelSet.current.rawValue,
        "stage_seconds": ["decode": lastTimes.decode, "copy": lastTimes.copy, "filter": lastTimes.filter, "encode": lastTimes.encode],
    ]
    let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
}

/// One photo's download, started at once; `body()` waits for it.
final class Fetch: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = LockedBox<Result<Data, DownloadError>?>(nil)

    init(engine: DownloadEngine, url: String) {
        _ = engine.start(url: url) { [result, done] outcome in
            result.withLock { $0 = outcome.map(\.data) }
            done.signal()
        }
    }

    func body() throws -> Data {
        done.wait()
        return try result.current!.get()
    }
}

func sourceURL(_ base: String, file: String, query: String) -> String {
    let name = URL(fileURLWithPath: file).lastPathComponent
    return "\(base)/\(name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name)?run=\(query)"
}

func makeRunDirectory(_ root: String, run: Int) throws -> URL {
    let directory = URL(fileURLWithPath: root).appendingPathComponent("run-\(run)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

func serve(_ directory: String) throws -> Never {
    let server = try LoopbackHTTPServer.serving(directory: URL(fileURLWithPath: directory))
    print(server.baseURL)
    fflush(stdout)
    while FileHandle.standardInput.availableData.count > 0 {}  // until standard input closes
    server.stop()
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "pipeline": try runPipeline(Options(arguments.dropFirst()))
case "serve":
    guard arguments.count == 2 else { fail("usage: PipelineBenchmark serve DIR") }
    try serve(arguments.last!)
default:
    fail("usage: PipelineBenchmark pipeline [--filter SPEC]... [--format jpeg|png|keep] [--quality Q] [--threads N] [--runs R] [--copy worker|fused|none|stream] [--fast-dct] [--source URL] [--out DIR] [--engine] FILE...\n       PipelineBenchmark serve DIR")
}
