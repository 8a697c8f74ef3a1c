import CCurlShim
import Foundation

/// Requests (see `CurlRequest`) on the engine's thread, beside the downloads.
extension DownloadEngine {
    /// Starts a request; `completion` is called exactly once, on the engine's thread (or at once,
    /// on the caller's thread, after `shutdown()`), with the response or a transport error
    /// (`.cancelled` after `cancel()`). Keep completions short, as for downloads.
    public func send(_ request: CurlRequest, completion: @escaping @Sendable (Result<CurlResponse, DownloadError>) -> Void) -> DownloadHandle {
        let transfer: Transfer
        switch makeRequest(request, completion: completion) {
        case .success(let made): transfer = made
        case .failure(let refusal):
            if !inbox.post(.reject({ completion(.failure(refusal)) })) { completion(.failure(.cancelledByCaller(url: request.url))) }
            return DownloadHandle(transfer: nil, inbox: nil)
        }
        if inbox.post(.start(transfer)) { return DownloadHandle(transfer: transfer, inbox: inbox) }
        pc_transfer_finish_unstarted(transfer.raw)
        transfer.complete(limits: limits)
        return DownloadHandle(transfer: nil, inbox: nil)
    }

    private func makeRequest(_ request: CurlRequest, completion: @escaping RequestCompletion) -> Result<Transfer, DownloadError> {
        guard let parts = URLParts(request.url), ["http", "https"].contains(parts.scheme) else {
            return .failure(DownloadError(kind: .invalidURL, message: "not an http or https URL: '\(request.url)'", url: request.url))
        }
        var reason = [CChar](repeating: 0, count: 256)
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        let raw: OpaquePointer? = withCStrings(lines) { headerLines in
            request.body.withUnsafeBytes { body in
                "http,https".withCString { protocols in
                    "PhotoCluster/0.1".withCString { agent in
                        request.method.withCString { method in
                            withOptionalCString(request.signing?.provider) { provider in
                                withOptionalCString(request.signing?.accessKeyID) { user in
                                    withOptionalCString(request.signing?.secretAccessKey) { password in
                                        var options = pc_options(
                                            connect_timeout_ms: DownloadLimits.milliseconds(request.connectTimeout),
                                            total_timeout_ms: DownloadLimits.milliseconds(request.totalTimeout),
                                            max_bytes: Int64(max(0, request.maxResponseBytes)), max_redirects: 0,
                                            protocols: protocols, user_agent: agent, policy: nil)
                                        var spec = pc_request(
                                            method: method,
                                            body: request.body.isEmpty ? nil : body.bindMemory(to: UInt8.self).baseAddress,
                                            body_len: request.body.count, headers: headerLines.baseAddress, header_count: lines.count,
                                            aws_sigv4: provider, user: user, password: password)
                                        return pc_request_new(request.url, &options, &spec, &reason, reason.count)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard let raw else {
            let message = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(DownloadError(kind: .other, message: message, url: request.url))
        }
        return .success(Transfer(url: request.url, raw: raw, policy: nil, completion: .request(
            keeping: request.responseHeaders,
            limits: DownloadLimits(
                connectTimeout: request.connectTimeout, totalTimeout: request.totalTimeout, maxBytes: request.maxResponseBytes, maxRedirects: 0),
            completion)))
    }
}

/// Calls `body` with C strings that live as long as the call.
private func withCStrings<T>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer(body)
}

private func withOptionalCString<T>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
