import CZeroMQ

/// A CURVE key pair as 40-character Z85 strings, the form libzmq takes them in.
///
/// `description` shows only the public key, so printing a pair never leaks its secret.
public struct CurveKeyPair: Sendable, Equatable, CustomStringConvertible {
    public let publicKey: String
    public let secretKey: String

    /// The pair of `secretKey`, its public key derived from it.
    public init(secretKey: String) throws {
        publicKey = try Self.derivePublic(fromSecret: secretKey)
        self.secretKey = secretKey
    }

    /// Checks both keys are Z85 and that `publicKey` is the one `secretKey` derives.
    public init(publicKey: String, secretKey: String) throws {
        try Z85.requireKey(publicKey)
        try self.init(secretKey: secretKey)
        guard self.publicKey == publicKey else { throw CurveKeyError(.publicKeyMismatch) }
    }

    /// A fresh random pair (`zmq_curve_keypair`).
    public static func generate() throws -> CurveKeyPair {
        var publicText = [CChar](repeating: 0, count: Z85.keyLength + 1)
        var secretText = [CChar](repeating: 0, count: Z85.keyLength + 1)
        guard zmq_curve_keypair(&publicText, &secretText) == 0 else { throw ZMQError("zmq_curve_keypair") }
        return try CurveKeyPair(secretKey: Z85.string(secretText))
    }

    /// The public key of a Z85 secret key (`zmq_curve_public`).
    public static func derivePublic(fromSecret secretKey: String) throws -> String {
        try Z85.requireKey(secretKey)
        var publicText = [CChar](repeating: 0, count: Z85.keyLength + 1)
        guard zmq_curve_public(&publicText, secretKey) == 0 else { throw ZMQError("zmq_curve_public") }
        return Z85.string(publicText)
    }

    /// Whether `key` is a 40-character Z85 key.
    public static func isValidKey(_ key: String) -> Bool { Z85.problem(with: key) == nil }

    public var description: String { "CurveKeyPair(public: \(publicKey))" }
}
