import Foundation

/// The environment a plugin host process starts with: only what a plugin needs to run, never
/// the worker's credentials.
///
/// A worker's environment holds what it uses to reach S3 (`AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`…) and whatever else its service manager put
/// there. A plugin is code the worker runs on photos, not a party to the worker's secrets, so
/// its host gets an allow-list: the search path, locale and time zone, a temporary directory,
/// the dynamic loader's path, and PhotoCluster's own settings; and of those, nothing whose name
/// says it is a secret.
public enum PluginHostEnvironment {
    /// Variables passed on by name.
    public static let passedNames: Set<String> = ["PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LD_LIBRARY_PATH", "SWIFT_BACKTRACE"]
    /// Variables passed on by prefix (locale categories; PhotoCluster's settings).
    public static let passedPrefixes = ["LC_", "PHOTOCLUSTER_"]
    /// Words that mark a variable as a secret, dropped even when its name or prefix is passed.
    static let secretWords = ["SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "KEY", "AWS_"]

    /// `environment` with everything a plugin host must not see taken out.
    public static func scrubbed(_ environment: [String: String]) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in environment where isPassed(name) {
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
        let upper = name.uppercased()
        if secretWords.contains(where: { upper.contains($0) }) { return false }
        return passedNames.contains(name) || passedPrefixes.contains { name.hasPrefix($0) }
    }
}
