import Foundation
import PhotoClusterCore

/// The environment a plugin host process starts with: a fixed allow-list of names, and the names
/// the operator passes on explicitly (`cluster worker --plugin-env NAME`); nothing else.
///
/// A worker's environment holds what it uses to reach S3 (`AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY`…), database passwords, headers and keys its service manager put there
/// under any name at all (`PHOTOCLUSTER_DB_PASS`, `…_AUTH_HEADER`, `…_PRIVATE_PEM`). A plugin is
/// code the worker runs on photos, not a party to those secrets. A list of words that mark a
/// secret can never be complete, so the host gets exactly the names below: the search path, the
/// locale categories and time zone, a temporary directory, the dynamic loader's path, and the two
/// PhotoCluster settings a host reads itself. Whatever else a plugin needs, the operator names.
public enum PluginHostEnvironment {
    /// Variables every plugin host gets when the worker has them.
    public static let fixedNames: Set<String> = [
        "PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LD_LIBRARY_PATH", "SWIFT_BACKTRACE",
        "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY", "LC_NUMERIC", "LC_TIME",
        "LC_ADDRESS", "LC_IDENTIFICATION", "LC_MEASUREMENT", "LC_NAME", "LC_PAPER", "LC_TELEPHONE",
        "PHOTOCLUSTER_PLUGINS", "PHOTOCLUSTER_KERNELS",
    ]

    /// Names the operator passed on (`--plugin-env`); set once when the worker starts, read by
    /// every spawn. Guarded by the box's lock.
    private static let operatorNames = LockedBox<Set<String>>([])

    /// Passes the variables named in `names` on to plugin hosts started from now on, besides
    /// `fixedNames`. Throws `invalidName` for a name that is not a variable name.
    public static func passAlso(_ names: [String]) throws {
        for name in names where !isVariableName(name) { throw InvalidName(name: name) }
        operatorNames.withLock { $0.formUnion(names) }
    }

    /// The names passed on besides `fixedNames`.
    public static var operatorPassedNames: Set<String> { operatorNames.current }

    /// `environment` reduced to what a plugin host may see: the variables in `fixedNames` and
    /// in `also`, with defaults for the search path and for crash reports.
    public static func scrubbed(_ environment: [String: String], also: Set<String>? = nil) -> [String: String] {
        let extra = also ?? operatorNames.current
        var result: [String: String] = [:]
        for (name, value) in environment where fixedNames.contains(name) || extra.contains(name) {
            result[name] = value
        }
        // A crash in a plugin is the worker's news to tell (one warning line naming the photo
        // and the plugin), not the Swift runtime's sixty-line report, unless asked for.
        if result["SWIFT_BACKTRACE"] == nil { result["SWIFT_BACKTRACE"] = "enable=no" }
        if result["PATH"] == nil { result["PATH"] = "/usr/local/bin:/usr/bin:/bin" }
        return result
    }

    /// Whether a variable named `name` reaches a plugin host.
    public static func isPassed(_ name: String) -> Bool {
        fixedNames.contains(name) || operatorNames.current.contains(name)
    }

    /// Letters, digits and '_', not starting with a digit: what a shell calls a variable name.
    public static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || CharacterSet.alphanumerics.contains($0)) }
    }

    /// `--plugin-env` was given something that is not an environment variable's name.
    public struct InvalidName: Error, CustomStringConvertible {
        public let name: String
        public init(name: String) { self.name = name }
        public var description: String {
            "\"\(name)\" is not an environment variable name (letters, digits and '_', not starting with a digit)"
        }
    }
}
