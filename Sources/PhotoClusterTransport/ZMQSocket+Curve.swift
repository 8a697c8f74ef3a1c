import CZeroMQ

/// CURVE security. Keys go to libzmq as their 40-character Z85 text (it also takes 32 raw bytes).
extension ZMQSocket {
    /// Makes this socket a CURVE server. Call before `bind`, and start the context's `ZAPHandler`
    /// first: without one, libzmq accepts every client that knows the server's public key.
    public func makeCurveServer(secretKey: String, zapDomain: String) throws {
        try Z85.requireKey(secretKey)
        try setOption(ZMQ_CURVE_SERVER, Int32(1))
        try setOption(ZMQ_CURVE_SECRETKEY, secretKey)
        try setOption(ZMQ_ZAP_DOMAIN, zapDomain)
    }

    /// Makes this socket a CURVE client of the server whose public key is `serverPublicKey`.
    /// Call before `connect`. A client the server refuses does not retry: watch for
    /// `SocketMonitor.Event.handshakeFailedAuth` and recreate the socket.
    public func makeCurveClient(serverPublicKey: String, keys: CurveKeyPair) throws {
        try Z85.requireKey(serverPublicKey)
        try setOption(ZMQ_CURVE_SERVERKEY, serverPublicKey)
        try setOption(ZMQ_CURVE_PUBLICKEY, keys.publicKey)
        try setOption(ZMQ_CURVE_SECRETKEY, keys.secretKey)
    }
}
