import PhotoClusterDownload

/// The keys requests are signed with. Their description names the access key id only: the
/// secret key and the session token never reach a log or a message.
public struct S3Credentials: Sendable, CustomStringConvertible, CustomReflectable {
    public let accessKeyID: String
    let secretAccessKey: String
    let sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
    }

    public var hasSessionToken: Bool { sessionToken != nil }

    public var description: String { "access key \(accessKeyID)\(sessionToken == nil ? "" : " with a session token")" }

    /// `dump` and debuggers see the access key id only.
    public var customMirror: Mirror { Mirror(self, children: ["accessKeyID": accessKeyID, "hasSessionToken": hasSessionToken]) }

    func signing(region: String) -> SigV4Signing {
        SigV4Signing(region: region, service: "s3", accessKeyID: accessKeyID, secretAccessKey: secretAccessKey)
    }
}
