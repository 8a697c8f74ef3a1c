import Foundation

/// A real PostgreSQL server for the tests, started by `scripts/throwaway-postgres` once per test
/// process (about two seconds) and stopped when the process exits; each test takes a database
/// of its own on it (`freshDatabase`), so tests share the server and nothing else.
///
/// `@unchecked Sendable` invariant: the shared server is started once, under `lock`; its fields
/// are immutable.
public final class ThrowawayPostgres: @unchecked Sendable {
    /// The server's directory (data, log, socket) and its URI (user postgres, database postgres).
    public let directory: URL
    public let uri: String

    private static let lock = NSLock()
    nonisolated(unsafe) private static var started: Result<ThrowawayPostgres, Error>?

    /// Whether the server binaries are installed (Debian's postgresql package).
    public static var isInstalled: Bool {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.contains { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") }
    }

    /// What a test that needs the server says when it skips.
    public static let missing = "PostgreSQL's server binaries are missing: install the postgresql package (scripts/install-test-tools)"

    /// The process's server, started on first use.
    public static func shared() throws -> ThrowawayPostgres {
        lock.lock()
        defer { lock.unlock() }
        if started == nil {
            started = Result { try ThrowawayPostgres(directory: Repository.temporaryDirectory("postgres")) }
            if case .success = started { atexit { ThrowawayPostgres.stopShared() } }
        }
        return try started!.get()
    }

    private static func stopShared() {
        guard case .success(let server) = started else { return }
        server.stop()
    }

    /// Starts a server in `directory` (which must be reachable by the postgres user when run as root).
    public init(directory: URL) throws {
        self.directory = directory
        // The script wants to make the data directory itself.
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        uri = try Self.script("start", directory.appendingPathComponent("server").path)
    }

    /// Stops the server at once and removes its files.
    public func stop() {
        _ = try? Self.script("stop", directory.appendingPathComponent("server").path)
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new, empty database on the server; its URI.
    public func freshDatabase(_ label: String) throws -> String {
        let name = "\(label)_\(UUID().uuidString.prefix(8).lowercased())"
        try psql(uri, "CREATE DATABASE \(name)")
        // The URI names the database last (…/postgres).
        return String(uri.dropLast("postgres".count)) + name
    }

    /// Runs SQL with psql (a client that is not the product's), returning its unaligned rows.
    @discardableResult
    public func psql(_ database: String, _ sql: String) throws -> [String] {
        let output = try Self.run("/usr/bin/psql", [database, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
        return output.split(separator: "\n").map(String.init)
    }

    private static func script(_ action: String, _ directory: String) throws -> String {
        try run(Repository.root.appendingPathComponent("scripts/throwaway-postgres").path, [action, directory])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let output = Repository.temporaryDirectory("postgres-output").appendingPathComponent("out")
        defer { try? FileManager.default.removeItem(at: output.deletingLastPathComponent()) }
        let process = try ChildProcess(executable, arguments, output: output)
        guard process.waitForExit(timeout: 60), process.status == 0 else {
            process.killAndReap()
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw NSError(domain: "ThrowawayPostgres", code: 1, userInfo: [
                NSLocalizedDescriptionKey: "\(executable) \(arguments.joined(separator: " ")) failed: \(text)",
            ])
        }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }
}
