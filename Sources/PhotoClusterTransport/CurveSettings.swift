import Foundation

/// CURVE settings of a node that binds (the coordinator): its key pair and whom it lets in.
public struct CurveServerSettings: Sendable {
    public var keys: CurveKeyPair
    public var authorized: AuthorizedKeys

    public init(keys: CurveKeyPair, authorized: AuthorizedKeys) {
        self.keys = keys
        self.authorized = authorized
    }
}

/// CURVE settings of a node that connects (a worker or a client): its key pair and the
/// coordinator's public key.
public struct CurveClientSettings: Sendable {
    public var keys: CurveKeyPair
    public var serverPublicKey: String

    public init(keys: CurveKeyPair, serverPublicKey: String) {
        self.keys = keys
        self.serverPublicKey = serverPublicKey
    }
}
