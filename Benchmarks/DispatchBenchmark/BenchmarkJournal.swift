import Foundation

/// Where the benchmark's coordinator keeps its journal (`--state`): nowhere, a SQLite file in a
/// new directory under a root, or a new database on a throwaway PostgreSQL server.
enum BenchmarkJournal {
    case off
    case sqlite(root: String)
    case postgres(ThrowawayServer)

    var name: String {
        switch self {
        case .off: return "off"
        case .sqlite: return "SQLite"
        case .postgres: return "PostgreSQL"
        }
    }

    /// The `--state` value of one run (a new directory or database), nil without a journal.
    func state(for run: String) throws -> String? {
        switch self {
        case .off: return nil
        case .sqlite(let root): return "\(root)/dispatch-bench-state-\(run)"
        case .postgres(let server): return try server.createDatabase("dispatch_bench_\(run)")
        }
    }

    /// Removes a run's journal (a database goes with its server).
    func remove(_ state: String) {
        if case .sqlite = self { try? FileManager.default.removeItem(atPath: state) }
    }
}

/// A PostgreSQL server of the benchmark's own, started with scripts/throwaway-postgres (run the
/// benchmark from the repository's root) and stopped at the end.
final class ThrowawayServer: @unchecked Sendable {
    let directory: String
    let uri: String

    init() throws {
        directory = "\(NSTemporaryDirectory())/dispatch-bench-postgres-\(getpid())"
        uri = try Self.run("scripts/throwaway-postgres", ["start", directory])
    }

    func createDatabase(_ name: String) throws -> String {
        _ = try Self.run("/usr/bin/psql", [uri, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE \(name)"])
        return String(uri.dropLast("postgres".count)) + name
    }

    func stop() {
        _ = try? Self.run("scripts/throwaway-postgres", ["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a program to its end and returns its standard output (its errors go to ours).
    /// posix_spawn and waitpid, not Foundation's Process: the script's child (the server) forks
    /// away, and Process left the script unreaped here.
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let output = "\(NSTemporaryDirectory())/dispatch-bench-output-\(getpid())"
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
            throw NSError(domain: "DispatchBenchmark", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot run \(executable)"])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else {
            throw NSError(domain: "DispatchBenchmark", code: 1, userInfo: [
                NSLocalizedDescriptionKey: "\(executable) \(arguments.joined(separator: " ")) failed (its messages are above)",
            ])
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
