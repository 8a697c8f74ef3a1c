import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto
import PhotoClusterWorker

/// One pass of `--engine`: the run's photos through the worker's own engine (its operations,
/// queues and downloads, via `LocalEngine`), holding as many graphs at once as a worker's credit
/// window, each output written as the coordinator writes it. What is left between this and a
/// cluster job is the cluster's own cost: messages, the coordinator and the client.
struct EnginePass {
    let engine: LocalEngine
    let results: EngineResults
    let window: Int

    init(threads: Int) {
        let results = EngineResults()
        self.results = results
        let worker = WorkerConfiguration(coordinatorEndpoint: "", engine: .init(concurrency: threads).allowingLoopback())
        engine = LocalEngine(configuration: worker.engine) { _, photo, outcome in results.finished(photo, outcome) }
        window = worker.window
    }

    /// Runs `urls` through the engine, calls `write` with each output; returns the bytes written.
    func run(job: String, urls: [String], filters: [ConfiguredFilter], format: String, quality: Int, fastDCT: Bool,
             write: @escaping @Sendable (_ index: Int, Data, ImageFormat) -> Void) throws -> Int {
        let graphs = urls.enumerated().map { index, url in
            Photocluster_V1_PhotoGraph.with {
                $0.jobID = job
                $0.photoIndex = UInt32(index)
                $0.name = "\(index)"
                $0.url = url
                $0.filters = filters.map { Photocluster_V1_FilterSpec($0.spec) }
                $0.format = format == "png" ? .png : format == "jpeg" ? .jpeg : .keep
                $0.quality = UInt32(quality)
                $0.fastDct = fastDCT
                $0.band = .visible
                $0.attempt = 1
            }
        }
        results.start(count: graphs.count, write: write) { [engine] index in engine.submit(graphs[index]) }
        for _ in 0..<min(window, graphs.count) { results.submitNext() }
        return try results.waitForAll()
    }
}

/// Keeps a pass's window full and gathers its outcomes. Its state sits behind one lock: the
/// engine's queue threads report outcomes while the pass's thread waits.
final class EngineResults: Sendable {
    private struct State {
        var count = 0
        var submitted = 0
        var finished = 0
        var bytes = 0
        var failure: String?
        var write: (@Sendable (Int, Data, ImageFormat) -> Void)?
        var submit: (@Sendable (Int) -> Void)?
    }

    private let state = LockedBox(State())
    private let done = DispatchSemaphore(value: 0)

    func start(count: Int, write: @escaping @Sendable (Int, Data, ImageFormat) -> Void, submit: @escaping @Sendable (Int) -> Void) {
        state.withLock { $0 = State(count: count, write: write, submit: submit) }
    }

    /// Submits the next graph in order, if any remain (outside the lock: an outcome may come back at once).
    func submitNext() {
        let next = state.withLock { s -> (Int, @Sendable (Int) -> Void)? in
            guard s.submitted < s.count, let submit = s.submit else { return nil }
            defer { s.submitted += 1 }
            return (s.submitted, submit)
        }
        if let (index, submit) = next { submit(index) }
    }

    func finished(_ photo: UInt32, _ outcome: LocalEngine.Outcome) {
        let write = state.withLock { $0.write }
        var failure: String?
        switch outcome {
        case .encoded(let data, let format): write?(Int(photo), data, format)
        case .failed(let stage, let reason): failure = "photo \(photo) failed at \(stage): \(reason)"
        case .cancelled: failure = "photo \(photo) was cancelled"
        }
        let last = state.withLock { s -> Bool in
            if case .encoded(let data, _) = outcome { s.bytes += data.count }
            if let failure { s.failure = failure }
            s.finished += 1
            return s.finished == s.count
        }
        if last { done.signal() } else { submitNext() }
    }

    func waitForAll() throws -> Int {
        done.wait()
        let (bytes, failure) = state.withLock { ($0.bytes, $0.failure) }
        if let failure { throw EnginePassError(reason: failure) }
        return bytes
    }
}

struct EnginePassError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
