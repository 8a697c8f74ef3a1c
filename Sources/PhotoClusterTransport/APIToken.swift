import Crypto
import Foundation

/// Bearer tokens for the HTTP API (`cluster token create`). A token is listed in the authorized
/// keys beside the CURVE keys, by its name, its role and the SHA-256 of its text, never the text
/// itself:
///
///     token  client  alice-site  sha256:9f86d08…   # alice's upload service
///
/// A token acts as a key of its role does: its jobs are its own, and `grant` lines name it as
/// `token:NAME`. Tokens are 32 random bytes, so a plain hash is as strong as a slow one would be.
public enum APIToken {
    /// What marks a token's text, so it is recognised in a leaked log or a secret scanner.
    public static let prefix = "pct_"

    /// The roles a token may have: an HTTP client is never a worker.
    public static let roles: Set<KeyRole> = [.client, .admin]

    /// A new token's text: the prefix and 32 random bytes in base64url.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let base64 = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return prefix + base64
    }

    /// `sha256:HEX` of a token's text, as the authorized keys list it.
    public static func digest(of token: String) -> String {
        "sha256:" + SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The name a token's holder goes by where a CURVE key would be: in job ownership, output
    /// claims, grants and logs. Never 40 characters long, so never a Z85 key.
    public static func principal(named name: String) -> String { "token:" + name }

    public static func isPrincipal(_ key: String) -> Bool { key.hasPrefix("token:") }

    /// Why `name` cannot name a token, or nil: 1 to 32 letters, digits, `.`, `_` or `-`.
    public static func nameProblem(_ name: String) -> String? {
        guard (1...32).contains(name.count) else { return "a token's name has 1 to 32 characters, got \(name.count)" }
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
            return "a token's name may hold only letters, digits, '.', '_' and '-', got \"\(name)\""
        }
        return nil
    }

    /// Why `digest` is not a `sha256:` followed by 64 hex digits, or nil.
    static func digestProblem(_ digest: String) -> String? {
        let hex = digest.dropFirst("sha256:".count)
        guard digest.hasPrefix("sha256:"), hex.count == 64, hex.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            return "a token is listed by 'sha256:' and 64 lowercase hex digits (what `cluster token create` writes), got \"\(digest)\""
        }
        return nil
    }
}
