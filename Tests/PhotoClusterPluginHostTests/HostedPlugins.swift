import Foundation
import PhotoClusterCore
import PhotoClusterPluginHost
import PhotoClusterPlugins
import PhotoClusterTestSupport
import XCTest

/// A plugin directory built from C for one test, loaded into plugin hosts run by the built
/// `cluster` binary, as a worker would.
final class HostedPlugins {
    let directory: URL
    let registry: FilterRegistry
    let pool: PluginHostPool?
    let report: PluginLoadReport

    /// Builds each (name, source) into the directory and loads it.
    init(_ plugins: [(String, String)], keepIdle: Int = 2, cancelGrace: TimeInterval = 1, loadTimeout: TimeInterval = 30) throws {
        let binary = Repository.clusterBinary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("\(binary.path) is missing: `make test` builds it first (swift build --product cluster)")
        }
        guard CPluginCompiler.compiler != nil else { throw XCTSkip("no C compiler (cc) on PATH: the test plugins cannot be built") }
        directory = Repository.temporaryDirectory("hosted-plugins")
        for (name, source) in plugins { try CPluginCompiler.build(name, source, into: directory) }
        let settings = PluginHostPool.Settings(executable: binary.path, keepIdle: keepIdle, cancelGrace: cancelGrace, loadTimeout: loadTimeout)
        (registry, pool, report) = PluginCatalog.load(directories: [directory], settings: settings)
    }

    deinit {
        pool?.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `spec` (e.g. `poison:width=13`) on `image` through the registry, as a worker's filter
    /// stage would.
    func run(_ spec: String, on image: RGBAImage, isCancelled: @escaping () -> Bool = { false }) throws -> RGBAImage {
        let filter = try registry.resolve(spec)
        return try filter.stage.apply(toCopyOf: image, parameters: filter.parameters, isCancelled: isCancelled)
    }

    /// Runs `specs` as one chain in one hand-off, with a time limit per filter.
    func runChain(_ specs: [String], on image: RGBAImage, limit: TimeInterval = 60, isCancelled: @escaping () -> Bool = { false }) throws -> RGBAImage {
        let calls = try specs.map { spec -> HostedCall in
            let filter = try registry.resolve(spec)
            return (filter.stage as! HostedFilterStage).call(filter.parameters)
        }
        return try XCTUnwrap(pool).run(calls, on: image, mayOverwrite: false, limit: limit, isCancelled: isCancelled)
    }
}

/// Images with varied, repeatable pixels.
enum Pixels {
    static func varied(width: Int, height: Int, seed: UInt32 = 1) -> RGBAImage {
        let image = RGBAImage(width: width, height: height)!
        var state = seed
        for n in 0..<image.byteCount {
            state = state &* 1_664_525 &+ 1_013_904_223
            image.pixels[n] = UInt8(truncatingIfNeeded: state >> 24)
        }
        return image
    }

    static func bytes(_ image: RGBAImage) -> [UInt8] {
        Array(UnsafeBufferPointer(start: image.pixels, count: image.byteCount))
    }
}

/// Whether a process with this pid exists (a zombie counts until it is reaped).
func processExists(_ pid: pid_t) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
}

/// A file of /proc read to its end: they report a size of 0, so reading by size stops short.
func procFile(_ path: String) throws -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw CPluginCompiler.Failure(description: "cannot open \(path)") }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// This process's children (its plugin hosts).
func childProcesses() -> [pid_t] {
    let me = getpid()
    return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(pid_t.init).filter { pid in
        guard let stat = try? procFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 && pid_t(fields[1]) == me
    }
}

/// A process's resident memory in megabytes (0 when it is gone).
func residentMegabytes(_ pid: pid_t) -> Int {
    let status = (try? procFile("/proc/\(pid)/status")) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
}
