import CCurlShim
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns a finished C transfer into the public result and its messages.
extension Transfer {
    func result(limits: DownloadLimits) -> Result<DownloadedBody, DownloadError> {
        // Taken on every path, so a failed transfer's partial body is freed now rather than when
        // the last DownloadHandle goes away.
        let body = takeBody()
        let outcome = pc_transfer_outcome(raw)
        if outcome == PC_OUTCOME_OK {
            let status = Int(pc_transfer_http_status(raw))
            guard status < 400 else {
                // The standard phrase, not the server's: a client is not told what a service answered.
                let phrase = DownloadError.statusPhrase(status)
                return .failure(error(.httpStatus(status), phrase.isEmpty ? "HTTP \(status)" : "HTTP \(status) \(phrase)"))
            }
            return .success(DownloadedBody(data: body, finalURL: finalURL, httpStatus: status))
        }
        return .failure(transportError(limits: limits))
    }

    /// Why a transfer that did not end OK failed.
    private func transportError(limits: DownloadLimits) -> DownloadError {
        let curlMessage = String(cString: pc_transfer_message(raw))
        switch pc_transfer_outcome(raw) {
        case PC_OUTCOME_TIMEOUT:
            // Before a connection exists the (possibly shorter) connect limit is the one that expired.
            let connectLimit = limits.connectTimeout > 0 ? limits.connectTimeout : 300   // curl's default
            let totalLimit = limits.totalTimeout > 0 ? limits.totalTimeout : Double.infinity
            let limit = pc_transfer_connected(raw) != 0 && totalLimit.isFinite ? totalLimit : min(connectLimit, totalLimit)
            return error(.timeout, "timed out after \(limit) s")
        case PC_OUTCOME_TOO_LARGE:
            return error(.tooLarge, "body is over the limit of \(limits.maxBytes) bytes")
        case PC_OUTCOME_TOO_MANY_REDIRECTS:
            return error(.tooManyRedirects, "more than \(limits.maxRedirects) redirects")
        case PC_OUTCOME_UNSUPPORTED_SCHEME:
            let scheme = URLParts(finalURL)?.scheme ?? ""
            let message = scheme.isEmpty || limits.normalizedSchemes.contains(scheme)
                ? curlMessage : DownloadError.schemeMessage(scheme, limits: limits)
            return error(.unsupportedScheme, message)
        case PC_OUTCOME_INVALID_URL:
            return error(.invalidURL, "invalid URL: \(curlMessage)")
        case PC_OUTCOME_RESOLVE:
            return error(.connection, !redirected
                ? "could not resolve host '\(URLParts(url)?.host ?? "")'" : "could not resolve the redirect's target host")
        case PC_OUTCOME_CONNECT:
            let code = pc_transfer_os_errno(raw)
            let reason = code != 0 ? String(cString: strerror(code)) : curlMessage
            return error(.connection, "could not connect to \(endpoint): \(reason)")
        case PC_OUTCOME_CONNECTION:
            return error(.connection, "connection to \(endpoint) failed: \(curlMessage)")
        case PC_OUTCOME_CANCELLED:
            return error(.cancelled, "cancelled")
        case PC_OUTCOME_POLICY:
            let reason = String(cString: pc_transfer_policy_reason(raw))
            let hop = String(cString: pc_transfer_policy_url(raw))
            let reach = AddressReach(rawValue: pc_transfer_policy_reach(raw))
            return error(.policy, DownloadError.policyMessage(reason, redirected: !hop.isEmpty, reach: reach))
        default:
            return error(.other, curlMessage.isEmpty ? "transfer failed" : curlMessage)
        }
    }

    /// A request's response, whatever its status; transport failures as for downloads.
    func response(keeping names: [String], limits: DownloadLimits) -> Result<CurlResponse, DownloadError> {
        guard pc_transfer_outcome(raw) == PC_OUTCOME_OK else {
            _ = takeBody()
            return .failure(transportError(limits: limits))
        }
        var headers: [String: String] = [:]
        var value = [CChar](repeating: 0, count: 1024)
        for name in names where pc_transfer_header(raw, name, &value, value.count) >= 0 {
            headers[name.lowercased()] = value.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        return .success(CurlResponse(
            status: Int(pc_transfer_http_status(raw)), reason: String(cString: pc_transfer_reason(raw)), headers: headers, body: takeBody()))
    }

    private var redirected: Bool { pc_transfer_redirects(raw) > 0 }

    private var finalURL: String {
        let effective = String(cString: pc_transfer_effective_url(raw))
        return effective.isEmpty ? url : effective
    }

    /// Host and port of the request as the client gave it; after a redirect, "the redirect's
    /// target": where a server sent the request (an internal port, say) is not for the client.
    private var endpoint: String {
        guard !redirected else { return "the redirect's target" }
        guard let parts = URLParts(url) else { return url }
        return parts.port >= 0 ? "\(parts.host):\(parts.port)" : parts.host
    }

    private func error(_ kind: DownloadError.Kind, _ message: String) -> DownloadError {
        DownloadError(kind: kind, message: message, url: url)
    }

    /// Takes over the malloc'd buffer without copying.
    private func takeBody() -> Data {
        var length = 0
        guard let bytes = pc_transfer_take_body(raw, &length) else { return Data() }
        return Data(bytesNoCopy: bytes, count: length, deallocator: .free)
    }
}

extension DownloadError {
    static func schemeMessage(_ scheme: String, limits: DownloadLimits) -> String {
        "scheme '\(scheme)' is not allowed (allowed: \(limits.normalizedSchemes.joined(separator: ", ")))"
    }

    /// `redirected`: a redirect's hop was refused, not the first request. `reach`: the class of
    /// address that refused it, nil for a deny or allow list. The redirect's URL is left out: it
    /// is what a server answered, and may name an internal service's port.
    static func policyMessage(_ reason: String, redirected: Bool, reach: AddressReach?) -> String {
        let after = redirected ? " after a redirect" : ""
        guard let reach else { return "refused by the download policy\(after): \(reason)" }
        return "download refused\(after): \(reason); \(reach.advice)"
    }

    /// The standard reason phrase of an HTTP status, "" for one without.
    static func statusPhrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 402: return "Payment Required"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 407: return "Proxy Authentication Required"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 417: return "Expectation Failed"
        case 421: return "Misdirected Request"
        case 422: return "Unprocessable Content"
        case 425: return "Too Early"
        case 426: return "Upgrade Required"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 451: return "Unavailable For Legal Reasons"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        case 507: return "Insufficient Storage"
        case 511: return "Network Authentication Required"
        default: return ""
        }
    }
}

/// Scheme, host and port of an absolute URL, as libcurl parses it.
struct URLParts {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: String) {
        var scheme = [CChar](repeating: 0, count: 64)
        var host = [CChar](repeating: 0, count: 512)
        var port = 0
        guard pc_url_split(url, &scheme, scheme.count, &host, host.count, &port) == 0 else { return nil }
        self.scheme = String(cString: scheme)
        self.host = String(cString: host)
        self.port = port
    }
}
