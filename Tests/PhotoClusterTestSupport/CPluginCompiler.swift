import Foundation

/// Builds filter plugins from C source at test time with the system C compiler (`cc`), against
/// the plugin ABI header in the repository.
public enum CPluginCompiler {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// `cc` on PATH, or nil.
    public static var compiler: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("cc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Compiles `source` into `directory/<name>.so`.
    @discardableResult
    public static func build(_ name: String, _ source: String, into directory: URL) throws -> URL {
        guard let compiler else { throw Failure(description: "no C compiler (cc) on PATH: the test plugins cannot be built") }
        let sources = Repository.temporaryDirectory("plugin-source")
        defer { try? FileManager.default.removeItem(at: sources) }
        let file = sources.appendingPathComponent("\(name).c")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let library = directory.appendingPathComponent("\(name).so")
        let include = Repository.root.appendingPathComponent("Sources/CPhotoClusterPluginABI/include").path

        let messagesFile = sources.appendingPathComponent("cc.log")
        let cc = try ChildProcess(compiler.path, ["-shared", "-fPIC", "-I", include, "-o", library.path, file.path], output: messagesFile)
        guard cc.waitForExit(timeout: 120), cc.status == 0 else {
            cc.killAndReap()
            let messages = (try? String(contentsOf: messagesFile, encoding: .utf8)) ?? ""
            throw Failure(description: "cc failed on \(name).c (status \(cc.status.map(String.init) ?? "none: still running after 120 s")):\n\(messages)")
        }
        return library
    }
}
