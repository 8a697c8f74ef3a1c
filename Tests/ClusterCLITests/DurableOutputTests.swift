import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// An output that exists is complete and stays after a power cut: its bytes are flushed before
/// the rename that names it, and its directory after (the rename is a change to the directory,
/// which the file's flush does not cover). Watched with strace, system call by system call, with
/// each descriptor's path shown (`-y`): outputs are made relative to their open directory.
final class DurableOutputTests: XCTestCase {
    func testEveryOutputAndTheIndexAreRenamedThenTheirDirectoryFlushed() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            throw XCTSkip("strace is missing: run scripts/install-test-tools")
        }
        let cluster = Repository.clusterBinary
        guard FileManager.default.isExecutableFile(atPath: cluster.path) else { throw XCTSkip("\(cluster.path) is missing") }
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        let work = Repository.temporaryDirectory("durable-output")
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        let manifest = work.appendingPathComponent("photos.txt")
        let photos = Array(Repository.samplePhotoFiles.prefix(3))
        try photos.map { "\(server.baseURL)/\($0)" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let out = work.appendingPathComponent("out")
        let trace = work.appendingPathComponent("trace")
        let traced = try RunningCommand(
            binary: URL(fileURLWithPath: "/usr/bin/strace"),
            arguments: ["-f", "-qq", "-y", "-e", "trace=rename,renameat,renameat2,openat,fsync,fdatasync", "-o", trace.path,
                        cluster.path, "submit", manifest.path, "--out", out.path, "--workers", "1"])
        let result = traced.finish(timeout: 60)
        if result.stderr.contains("Operation not permitted") && result.stderr.contains("ptrace") {
            throw XCTSkip("strace may not trace here (ptrace refused): \(result.stderr)")
        }
        XCTAssertEqual(result.status, 0, result.stderr)

        let calls = try SystemCallTrace(contentsOf: trace)
        let directory = try XCTUnwrap(realpath(out.path, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) })
        let renames = calls.renames(into: directory)
        // The owner record is made under a name of its job's, then linked to its own name (see `OutputOwnership`).
        XCTAssertEqual(Set(renames.map { $0.name.hasPrefix(".photocluster-owner.json.") ? ".photocluster-owner.json" : $0.name }),
                       Set(photos + ["index.json", ".photocluster-owner.json"]),
                       "each photo, index.json and the owner record: \(renames.map(\.name))")
        for rename in renames {
            let after = calls.byThread[rename.thread]!.suffix(from: rename.position + 1)
            XCTAssertTrue(after.contains { $0.hasPrefix("fsync(") && $0.contains("<\(directory)>") },
                          "\(rename.name): its directory was not flushed after the rename")
        }
    }
}

/// strace's output (`-f -o FILE`): each thread's calls in order, by the line that starts them
/// (a call another thread interrupts is split into "<unfinished ...>" and "resumed" lines).
private struct SystemCallTrace {
    var byThread: [String: [String]] = [:]

    init(contentsOf file: URL) throws {
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, !parts[1].hasPrefix("<...") else { continue }
            byThread[String(parts[0]), default: []].append(String(parts[1]).trimmingCharacters(in: .whitespaces))
        }
    }

    /// Renames whose target is in `directory`: the thread, the call's place in its list, and the name.
    func renames(into directory: String) -> [(thread: String, position: Int, name: String)] {
        byThread.flatMap { thread, calls in
            calls.enumerated().compactMap { position, call -> (String, Int, String)? in
                // The target is the last path: a whole one (rename), or a name after the descriptor
                // of its directory, shown as `FD</path>` (renameat, renameat2).
                guard call.hasPrefix("rename"),
                      let range = call.range(of: ", \"\(directory)/", options: .backwards) ?? call.range(of: "<\(directory)>, \"", options: .backwards)
                else { return nil }
                let name = call[range.upperBound...].prefix { $0 != "\"" }
                return (thread, position, String(name))
            }
        }
    }
}
