import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

/// A real `cluster worker` with its default memory flags inside a real cgroup v1 memory limit of
/// 1.5 GiB: it reads the limit, keeps its photos inside it, and is never OOM-killed.
final class WorkerMemoryLimitTests: XCTestCase {
    func testAWorkerInsideACgroupLimitRefusesWhatCannotFitAndQueuesWhatCanOneAtATime() throws {
        let limit = 1_536 << 20

        // The photos, made here: a 1x1 PNG, and a 10000x10000 lossless WebP of a few KB served
        // under two names.
        guard let tinyImage = RGBAImage(width: 1, height: 1), let largeImage = RGBAImage(width: 10000, height: 10000) else {
            return XCTFail("no memory for the test images")
        }
        tinyImage.pixels.update(repeating: 200, count: 4)
        largeImage.pixels.update(repeating: 180, count: largeImage.byteCount)
        let tiny = try ImageCodec.encode(tinyImage, as: .png, options: EncodeOptions())
        let large = try ImageCodec.encode(largeImage, as: .webp, options: EncodeOptions(quality: 25, lossless: true))
        XCTAssertLessThan(large.count, 1 << 20, "the WebP is a small download")
        let cluster = try CgroupWorkerCluster(
            label: "memory", limitBytes: limit, made: ["tiny.png": (tiny, "image/png"), "large.webp": (large, "image/webp")],
            coordinatorArguments: ["--heartbeat-ms", "250"])
        defer { cluster.stop() }
        let group = cluster.group, worker = cluster.worker!

        // The budget, and where it came from, at start.
        XCTAssertTrue(worker.stderrSoFar.contains("memory budget 1.1 GiB for photos: limit 1.5 GiB from cgroup v1 \(group.path.path)/memory.limit_in_bytes"), worker.stderrSoFar)

        let ordinary = Repository.samplePhotoFiles.prefix(6).enumerated().map { ("o\($0.offset)", "\($0.element)?n=\($0.offset)") }
        let huge = try cluster.submit("huge", [("tiny", "tiny.png")], ["--filter", "resize:width=20000,height=20000", "--filter", "sharpen:sigma=1"])
        let webps = try cluster.submit("webp", [("a", "large.webp?n=a"), ("b", "large.webp?n=b")], ["--format", "jpeg"])
        let others = try cluster.submit("ordinary", ordinary, ["--filter", "grayscale"])

        // The tiny photo that would grow to 3 GB fails at once, with the figure and the option.
        let hugeResult = huge.finish(timeout: 120)
        XCTAssertEqual(hugeResult.status, 1, hugeResult.stderr)
        let failure = try XCTUnwrap(((try JSONSerialization.jsonObject(with: Data(hugeResult.stdout.utf8)) as? [String: Any])?["failed"] as? [[String: Any]])?.first)
        let reason = failure["error"] as? String ?? ""
        XCTAssertTrue(reason.contains("at its peak") && reason.contains("over this worker's memory budget of 1.1 GiB (--memory-limit)"), reason)

        // Both large photos succeed, and so do the ordinary ones alongside.
        let webpResult = webps.finish(timeout: 300)
        XCTAssertEqual(webpResult.status, 0, webpResult.stderr + webpResult.stdout)
        let webpReport = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(webpResult.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(webpReport["succeeded"] as? Int, 2)
        let otherResult = others.finish(timeout: 300)
        XCTAssertEqual(otherResult.status, 0, otherResult.stderr + otherResult.stdout)

        // One after the other: the second one's decode began after the first one's encode ended
        // (the stages the worker reported), and the worker says a photo waited for memory.
        let job = try XCTUnwrap(webpReport["job"] as? String)
        let trace = try CommandRunner.run(["trace", job, "--out", "-", "--coordinator", cluster.clientEndpoint])
        XCTAssertEqual(trace.status, 0, trace.stderr)
        let events = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(trace.stdout.utf8)) as? [String: Any])?["traceEvents"] as? [[String: Any]])
        var spans: [Int: (start: Double, end: Double)] = [:]
        for event in events where event["ph"] as? String == "X" {
            guard let args = event["args"] as? [String: Any], let photo = args["photo"] as? Int,
                  let ts = event["ts"] as? Double, let dur = event["dur"] as? Double, ["decode", "encode"].contains(event["name"] as? String) else { continue }
            let old = spans[photo] ?? (ts, ts + dur)
            spans[photo] = (min(old.start, ts), max(old.end, ts + dur))
        }
        let first = try XCTUnwrap(spans[0]), second = try XCTUnwrap(spans[1])
        XCTAssertTrue(first.end <= second.start || second.end <= first.start, "the two large photos overlapped: \(spans)")
        let exposition = try HTTP.text("http://\(cluster.workerMetrics)/metrics")
        XCTAssertGreaterThanOrEqual(sample("photocluster_memory_waits_total", in: exposition) ?? 0, 1, exposition)
        XCTAssertGreaterThanOrEqual(sample("photocluster_memory_refusals_total", in: exposition) ?? 0, 1, exposition)
        XCTAssertEqual(sample("photocluster_memory_limit_bytes", in: exposition), Double(limit), exposition)
        XCTAssertLessThanOrEqual(sample("photocluster_memory_in_use_peak_bytes", in: exposition) ?? .infinity, sample("photocluster_memory_budget_bytes", in: exposition) ?? 0)
        // What it holds besides: the downloads it keeps for photos that come back, within the
        // cache's capacity, and its resident memory, which holds them and stays within the limit.
        let cached = try XCTUnwrap(sample("photocluster_stage_cache_bytes", in: exposition), exposition)
        XCTAssertGreaterThan(cached, 0, exposition)
        XCTAssertLessThanOrEqual(cached, try XCTUnwrap(sample("photocluster_stage_cache_capacity_bytes", in: exposition), exposition))
        let resident = try XCTUnwrap(sample("photocluster_resident_bytes", in: exposition), exposition)
        XCTAssertGreaterThan(resident, cached, exposition)
        XCTAssertLessThan(resident, Double(limit), exposition)
        // The coordinator shows it too, from the worker's heartbeats.
        let status = try CommandRunner.run(["status", "--json", "--coordinator", cluster.clientEndpoint])
        XCTAssertEqual(status.status, 0, status.stderr)
        let statusJSON = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let listed = try XCTUnwrap((statusJSON["workers"] as? [[String: Any]])?.first)
        let reported = try XCTUnwrap((listed["residentBytes"] as? String).flatMap(Double.init), "\(listed)")  // proto JSON: a uint64 as a string
        XCTAssertGreaterThan(reported, cached, "\(listed)")
        XCTAssertLessThan(reported, Double(limit), "\(listed)")
        XCTAssertGreaterThan(try XCTUnwrap(statusJSON["residentBytes"] as? String).flatMap(Double.init) ?? 0, Double(1 << 20), "the coordinator's own")
        let words = try CommandRunner.run(["status", "--coordinator", cluster.clientEndpoint])
        XCTAssertNotNil(words.stdout.range(of: #"waiting  resident [0-9]+ MiB"#, options: .regularExpression), words.stdout)
        XCTAssertNotNil(words.stdout.range(of: #"^coordinator: .+, up .+, [0-9]+ MiB resident\n"#, options: .regularExpression), words.stdout)

        // Alive, never killed, never at its limit.
        XCTAssertEqual(kill(worker.process.pid, 0), 0, "the worker is gone")
        XCTAssertTrue(worker.process.isRunning, "the worker ended: \(worker.stderrSoFar)")
        XCTAssertEqual(group.oomKills, 0, "the kernel killed a process of the group")
        XCTAssertEqual(group.failures, 0, "the group reached its limit (max usage \(group.maxUsage))")
        XCTAssertLessThan(group.maxUsage, limit)
    }
}

/// A cgroup v1 memory group made for one test (root only), and processes started inside it.
final class MemoryCgroup {
    let path: URL

    init(limitBytes: Int) throws {
        let mount = URL(fileURLWithPath: "/sys/fs/cgroup/memory")
        guard getuid() == 0, FileManager.default.fileExists(atPath: mount.appendingPathComponent("memory.limit_in_bytes").path) else {
            throw XCTSkip("needs root and a cgroup v1 memory controller at \(mount.path)")
        }
        path = mount.appendingPathComponent("photocluster-test-\(getpid())-\(UUID().uuidString.prefix(6))")
        do {
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: false)
            try write("\(limitBytes)", to: "memory.limit_in_bytes")
        } catch {
            try? FileManager.default.removeItem(at: path)
            throw XCTSkip("cannot make a memory cgroup at \(path.path): \(error)")
        }
    }

    private func write(_ text: String, to file: String) throws {
        try text.write(to: path.appendingPathComponent(file), atomically: false, encoding: .utf8)
    }

    private func read(_ file: String) -> String {
        (try? String(contentsOf: path.appendingPathComponent(file), encoding: .utf8)) ?? ""
    }

    /// `cluster ARGUMENTS` started by a shell that first moves itself into the group.
    func start(_ arguments: [String]) throws -> RunningCommand {
        let binary = Repository.clusterBinary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw XCTSkip("\(binary.path) is missing") }
        let procs = path.appendingPathComponent("cgroup.procs").path
        return try RunningCommand(binary: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo $$ > '\(procs)' && exec \"$0\" \"$@\"", binary.path] + arguments)
    }

    var failures: Int { Int(read("memory.failcnt").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
    var maxUsage: Int { Int(read("memory.max_usage_in_bytes").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
    /// `oom_kill N` of memory.oom_control.
    var oomKills: Int {
        for line in read("memory.oom_control").split(separator: "\n") where line.hasPrefix("oom_kill ") {
            return Int(line.dropFirst("oom_kill ".count)) ?? -1
        }
        return 0
    }

    /// Removes the group once its processes have ended.
    func remove() {
        for _ in 0..<50 {
            if read("cgroup.procs").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        rmdir(path.path)
    }
}
