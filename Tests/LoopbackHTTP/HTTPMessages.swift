import Foundation

/// A parsed request line and headers (header names lowercased; bodies are not read).
public struct HTTPRequest: Sendable {
    public let method: String
    /// The request target as sent, query included.
    public let path: String
    public let headers: [String: String]
    /// "HTTP/1.1" or "HTTP/1.0".
    public let version: String

    init(method: String, path: String, headers: [String: String], version: String = "HTTP/1.1") {
        self.method = method
        self.path = path
        self.headers = headers
        self.version = version
    }
}

/// What the server sends back. `Content-Length` and `Connection` are added; a
/// `Transfer-Encoding: chunked` header makes the body go out chunked, without a length.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    /// Seconds to wait before sending anything (to provoke timeouts).
    public var delayBeforeHeaders: Double
    /// Send the body slowly: `chunk` bytes every `interval` seconds; stops if the client goes away.
    public var trickle: (chunk: Int, interval: Double)?

    public init(
        status: Int = 200, headers: [String: String] = [:], body: Data = Data(),
        delayBeforeHeaders: Double = 0, trickle: (chunk: Int, interval: Double)? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delayBeforeHeaders = delayBeforeHeaders
        self.trickle = trickle
    }

    public static func notFound() -> HTTPResponse {
        HTTPResponse(status: 404, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data("not found\n".utf8))
    }

    public static func redirect(to location: String, status: Int = 302) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Location": location])
    }
}

extension HTTPResponse {
    var isChunked: Bool {
        headers.contains { $0.key.lowercased() == "transfer-encoding" && $0.value.lowercased().contains("chunked") }
    }

    /// Status line and headers, ending with the blank line. `keepAlive`: the connection stays
    /// open for the next request.
    func head(includeLength: Bool, keepAlive: Bool = false) -> Data {
        var lines = ["HTTP/1.1 \(status) \(Self.reason(for: status))"]
        for (name, value) in headers.sorted(by: { $0.key < $1.key })
        where !["content-length", "connection"].contains(name.lowercased()) {
            lines.append("\(name): \(value)")
        }
        if includeLength && !isChunked { lines.append("Content-Length: \(body.count)") }
        lines.append(keepAlive ? "Connection: keep-alive" : "Connection: close")
        return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    static func reason(for status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 410: return "Gone"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status \(status)"
        }
    }
}

extension HTTPRequest {
    /// Whether the client lets the connection stay open after the response: HTTP/1.1 unless it
    /// sent `Connection: close`.
    var allowsKeepAlive: Bool {
        version == "HTTP/1.1" && headers["connection"]?.lowercased() != "close"
    }

    /// Parses "METHOD TARGET VERSION" and "Name: value" lines; nil if malformed.
    init?(head: Data) {
        guard let text = String(data: head, encoding: .utf8) ?? String(data: head, encoding: .isoLatin1) else { return nil }
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/") else { return nil }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.init(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, version: String(requestLine[2]))
    }
}
