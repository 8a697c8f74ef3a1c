import Foundation
import PhotoClusterCore
import PhotoClusterDownload

/// Why an S3 request failed, in words that say what to do next, e.g. "S3 refused the signature
/// of s3://photos/cat.jpg (SignatureDoesNotMatch): check AWS_SECRET_ACCESS_KEY".
///
/// `message` is for the log of the process that made the request (it may quote S3's own text
/// and name the access key id); `clientMessage` is what a client is told: which object could not
/// be read or written and what to do, with neither.
public struct S3Failure: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// For clients: no provider text, no key ids, no names of the credentials' variables.
    public let clientMessage: String
    /// Worth trying again later: S3 answered 5xx or throttled, or the connection failed.
    public let isTransient: Bool
    /// The HTTP status S3 answered, nil when it did not answer.
    public let status: Int?
    /// S3's error code (`NoSuchKey`, `AccessDenied`…), when it sent one.
    public let code: String?
    public let isCancelled: Bool

    public var description: String { message }

    init(message: String, clientMessage: String? = nil, isTransient: Bool, status: Int? = nil, code: String? = nil, isCancelled: Bool = false) {
        self.message = message
        // Only what S3 answered (and how it could not be reached) carries its text: those give their own.
        self.clientMessage = clientMessage ?? message
        self.isTransient = isTransient
        self.status = status
        self.code = code
        self.isCancelled = isCancelled
    }

    static func cancelled(_ object: S3Location) -> S3Failure {
        S3Failure(message: "cancelled (\(object))", isTransient: false, isCancelled: true)
    }

    /// A transport failure: no answer from S3.
    static func transport(_ error: DownloadError, _ what: String, action: String = "", configuration: S3Configuration) -> S3Failure {
        if error.kind == .cancelled { return S3Failure(message: "cancelled (\(what))", isTransient: false, isCancelled: true) }
        let hint = configuration.endpoint == nil ? "" : " (the endpoint comes from AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL)"
        return S3Failure(message: "S3 at \(configuration.endpointDescription) did not answer for \(what): \(error.message)\(hint)",
                         clientMessage: "\(what) could not be \(Self.done(action)): S3 did not answer; try again later, or ask the operator to look at the log of the node that tried",
                         isTransient: error.isTransient)
    }

    /// S3 answered with an error status (or an `<Error>` document).
    static func answered(_ response: CurlResponse, _ what: String, action: String, configuration: S3Configuration) -> S3Failure {
        let code = S3XML.text(of: "Code", in: response.body)
        let status = response.status
        let transient = status >= 500 || status == 429 || ["SlowDown", "RequestTimeout", "InternalError", "ServiceUnavailable"].contains(code ?? "")
        let noCredentials = configuration.credentials == nil
            ? ": no credentials are set (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), so the request was unsigned" : ""
        let said = code.map { " (\($0))" } ?? " (HTTP \(status)\(response.reason.isEmpty ? "" : " \(response.reason)"))"
        let message: String
        switch code {
        case "SignatureDoesNotMatch":
            message = "S3 refused the signature of \(what)\(said): check AWS_SECRET_ACCESS_KEY"
        case "InvalidAccessKeyId":
            message = "S3 does not know the access key \(configuration.credentials?.accessKeyID ?? "")\(said): check AWS_ACCESS_KEY_ID"
        case "InvalidToken", "ExpiredToken", "TokenRefreshRequired":
            message = "S3 refused the session token for \(what)\(said): renew AWS_SESSION_TOKEN (or unset it for long-term keys)"
        case "RequestTimeTooSkewed":
            message = "S3 refused \(what)\(said): this host's clock is more than 15 minutes off; set it right (NTP)"
        case "AuthorizationHeaderMalformed", "PermanentRedirect", "IllegalLocationConstraintException":
            message = "S3 says the bucket of \(what) is in another region than \(configuration.region)\(said): set AWS_REGION"
        case "NoSuchBucket":
            message = "S3 has no bucket for \(what)\(said)"
        case "NoSuchKey":
            message = "S3 has no object \(what)\(said)"
        case "AccessDenied", "AllAccessDisabled", "AccountProblem":
            message = "S3 denied \(action) on \(what)\(said)\(noCredentials.isEmpty ? ": the credentials' policy must allow \(action)" : noCredentials)"
        default:
            if status == 404 {
                message = "S3 has no object \(what)\(said)"
            } else if status == 403 {
                message = "S3 denied \(action) on \(what)\(said)\(noCredentials.isEmpty ? ": the credentials' policy must allow \(action)" : noCredentials)"
            } else if (300..<400).contains(status) {
                message = "S3 redirected \(what)\(said): the bucket is in another region than \(configuration.region); set AWS_REGION"
            } else {
                let detail = S3XML.text(of: "Message", in: response.body).map { ": \($0)" } ?? ""
                message = "S3 refused \(action) on \(what)\(said)\(detail)"
            }
        }
        return S3Failure(message: message, clientMessage: clientMessage(what, action: action, status: status, code: code, transient: transient),
                         isTransient: transient, status: status, code: code)
    }

    /// "read", "written", "listed"…: what `action` does to an object, for clients.
    static func done(_ action: String) -> String {
        switch action {
        case "s3:GetObject": return "read"
        case "s3:PutObject": return "written"
        case "": return "read or written"
        default: return "used"
        }
    }

    /// What a client is told about a failure S3 answered: the object, the kind of failure in our
    /// words (never S3's message, never a key id), and what to do.
    static func clientMessage(_ what: String, action: String, status: Int, code: String?, transient: Bool) -> String {
        let head = "\(what) could not be \(done(action))"
        if transient { return "\(head): S3 was unavailable (HTTP \(status)); try again later" }
        switch (status, code) {
        case (404, _), (_, "NoSuchKey"), (_, "NoSuchBucket"):
            return "\(head): there is no such object or bucket (HTTP \(status)); check the URL"
        case (403, _), (_, "AccessDenied"), (_, "AllAccessDisabled"), (_, "AccountProblem"), (_, "SignatureDoesNotMatch"), (_, "InvalidAccessKeyId"),
             (_, "InvalidToken"), (_, "ExpiredToken"), (_, "TokenRefreshRequired"):
            return "\(head): access was denied (HTTP \(status)); ask the operator to check the cluster's S3 credentials and their access to it (the node's log has the details)"
        default:
            return "\(head): S3 refused the request (HTTP \(status)); ask the operator (the node's log has the details)"
        }
    }
}
