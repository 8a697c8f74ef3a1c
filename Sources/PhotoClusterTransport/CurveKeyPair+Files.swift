import Foundation
import PhotoClusterCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Key files. `NAME.key` (mode 0600) holds both keys, `NAME.pub` only the public one:
///
///     # PhotoCluster CURVE secret key. Keep it private (mode 0600); share NAME.pub instead.
///     public-key = "<40 Z85 characters>"
///     secret-key = "<40 Z85 characters>"
///
/// `#` starts a comment line; blank lines are ignored. A secret file that group or others may
/// read or write is refused by `load` unless `requireOwnerOnly` is false, as ssh refuses keys.
extension CurveKeyPair {
    public static let secretFileExtension = "key"
    public static let publicFileExtension = "pub"

    /// Writes `directory/NAME.key` (0600) and `directory/NAME.pub` (0644), each atomically, creating
    /// `directory` if needed. Refuses to replace existing files unless `overwrite`.
    @discardableResult
    public func write(to directory: URL, name: String, overwrite: Bool = false) throws -> (secretFile: URL, publicFile: URL) {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw CurveKeyError(file: directory, .writeFailed("invalid key name '\(name)'"))
        }
        let secretFile = directory.appendingPathComponent("\(name).\(Self.secretFileExtension)")
        let publicFile = directory.appendingPathComponent("\(name).\(Self.publicFileExtension)")
        for file in [secretFile, publicFile] where !overwrite && FileManager.default.fileExists(atPath: file.path) {
            throw CurveKeyError(file: file, .alreadyExists)
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CurveKeyError(file: directory, .writeFailed(error.localizedDescription))
        }
        let secretText = KeyFileSyntax.render(
            header: ["PhotoCluster CURVE secret key. Keep it private (mode 0600); share \(name).pub instead."],
            fields: [("public-key", publicKey), ("secret-key", secretKey)]
        )
        let publicText = KeyFileSyntax.render(
            header: ["PhotoCluster CURVE public key."],
            fields: [("public-key", publicKey)]
        )
        try Self.writeAtomically(secretText, to: secretFile, mode: 0o600)
        try Self.writeAtomically(publicText, to: publicFile, mode: 0o644)
        return (secretFile, publicFile)
    }

    /// Reads a `.key` file. Its `public-key` line is optional but, when present, must match.
    public static func load(secretFile: URL, requireOwnerOnly: Bool = true) throws -> CurveKeyPair {
        let text = try KeyFileSyntax.read(secretFile)
        if requireOwnerOnly, let mode = permissions(of: secretFile), mode & 0o077 != 0 {
            throw CurveKeyError(file: secretFile, .permissionsTooOpen(mode: mode))
        }
        let fields = try keyFields(in: text, file: secretFile, allowed: ["public-key", "secret-key"])
        guard let secret = fields["secret-key"] else { throw CurveKeyError(file: secretFile, .missingField("secret-key")) }
        let pair = try CurveKeyPair(secretKey: secret.value)
        if let listed = fields["public-key"], listed.value != pair.publicKey {
            throw CurveKeyError(file: secretFile, line: listed.line, .publicKeyMismatch)
        }
        return pair
    }

    /// Reads the `public-key` of a `.pub` file.
    public static func loadPublicKey(file: URL) throws -> String {
        let text = try KeyFileSyntax.read(file)
        let fields = try keyFields(in: text, file: file, allowed: ["public-key"])
        guard let key = fields["public-key"] else { throw CurveKeyError(file: file, .missingField("public-key")) }
        return key.value
    }

    /// The `name = "key"` fields of a key file, each checked to be a Z85 key.
    private static func keyFields(in text: String, file: URL, allowed: Set<String>) throws -> [String: KeyFileEntry] {
        var fields: [String: KeyFileEntry] = [:]
        for entry in try KeyFileSyntax.entries(in: text, file: file) {
            guard let name = entry.field else {
                throw CurveKeyError(file: file, line: entry.line, .malformedLine("expected `name = \"value\"`"))
            }
            guard allowed.contains(name) else {
                let problem: CurveKeyError.Problem = name == "secret-key" ? .secretKeyInPublicFile : .unknownField(name)
                throw CurveKeyError(file: file, line: entry.line, problem)
            }
            guard fields[name] == nil else { throw CurveKeyError(file: file, line: entry.line, .duplicateField(name)) }
            if let problem = Z85.problem(with: entry.value) { throw CurveKeyError(file: file, line: entry.line, problem) }
            fields[name] = entry
        }
        return fields
    }

    private static func permissions(of file: URL) -> Int? {
        var info = stat()
        guard stat(file.path, &info) == 0 else { return nil }
        return Int(info.st_mode) & 0o777
    }

    /// Writes through a new temporary file created with `mode`, so the secret is never readable by
    /// others even for a moment, and readers never see half a file.
    private static func writeAtomically(_ text: String, to file: URL, mode: mode_t) throws {
        do {
            try DurableFile.write(Data(text.utf8), to: file, tag: UUID().uuidString, permissions: mode)
        } catch let failure as DurableFile.Failure {
            throw CurveKeyError(file: file, .writeFailed(failure.reason))
        }
    }
}
