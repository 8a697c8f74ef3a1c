import Foundation

/// A ZAP request (RFC 27) as libzmq sends it to the handler, and the reply it expects.
///
/// Request frames: version "1.0", request id, domain, address, routing id, mechanism, credentials…
/// Reply frames: version "1.0", request id, status code, status text, user id, metadata.
struct ZAPRequest {
    static let version = "1.0"

    let requestID: Data
    let domain: String
    let address: String
    let mechanism: String
    let credentials: [Data]

    /// Nil for a request that is not ZAP 1.0.
    init?(frames: [Data]) {
        guard frames.count >= 6, String(decoding: frames[0], as: UTF8.self) == Self.version else { return nil }
        requestID = frames[1]
        domain = String(decoding: frames[2], as: UTF8.self)
        address = String(decoding: frames[3], as: UTF8.self)
        mechanism = String(decoding: frames[5], as: UTF8.self)
        credentials = Array(frames.dropFirst(6))
    }

    /// The client's CURVE public key in Z85, when this is a well-formed CURVE request.
    var curvePublicKey: String? {
        guard mechanism == "CURVE", credentials.count == 1 else { return nil }
        return Z85.encode(key: credentials[0])
    }

    func reply(status: String, text: String, userID: String) -> [Data] {
        Self.reply(requestID: requestID, status: status, text: text, userID: userID)
    }

    static func reply(requestID: Data, status: String, text: String, userID: String) -> [Data] {
        [Data(version.utf8), requestID, Data(status.utf8), Data(text.utf8), Data(userID.utf8), Data()]
    }
}
