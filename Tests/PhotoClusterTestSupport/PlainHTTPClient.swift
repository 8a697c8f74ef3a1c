import Foundation

/// A blocking HTTP/1.1 client for the tests: one request per connection (`Connection: close`),
/// over a plain socket with a deadline, the body read to the end of the stream.
///
/// `URLSession` is not used in the tests for the same reason as `Process` (see `ChildProcess`):
/// it runs its own threads and run loop in the test process. Here nothing outlives the call.
public enum PlainHTTPClient {
    public struct Response: Sendable {
        public let status: Int
        /// Header names in lower case.
        public let headers: [String: String]
        public let body: Data
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Sends one request to `url` (`http://host:port/path?query`) and returns the whole response,
    /// or throws when the server cannot be reached, stops answering for `timeout` seconds, or
    /// sends something that is not HTTP. A `Host` in `headers` replaces the one `url` gives.
    public static func send(
        _ method: String = "GET", _ url: String, headers: [String: String] = [:], body: Data = Data(), timeout: Double = 10
    ) throws -> Response {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host else {
            throw Failure(description: "\(url): not an http:// URL")
        }
        let port = components.port ?? 80
        let target = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
            + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let fd = try connect(host: host, port: port, timeout: timeout, url: url)
        defer { close(fd) }
        let givenHost = headers.first { $0.key.lowercased() == "host" }?.value
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(givenHost ?? "\(host):\(port)")\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers where name.lowercased() != "host" { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try sendAll(Data(head.utf8) + body, on: fd, url: url)
        return try parse(try readToEnd(fd, url: url), url: url, bodyless: method == "HEAD")
    }

    // MARK: - Socket

    private static func connect(host: String, port: Int, timeout: Double, url: String) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else {
            throw Failure(description: "\(url): cannot resolve \(host)")
        }
        defer { freeaddrinfo(found) }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "\(url): socket: \(String(cString: strerror(errno)))") }
        // Both the connect and every read or write give up after `timeout`.
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "\(url): cannot connect: \(reason)")
        }
        return fd
    }

    private static func sendAll(_ data: Data, on fd: Int32, url: String) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { throw Failure(description: "\(url): cannot send the request: \(String(cString: strerror(errno)))") }
                offset += sent
            }
        }
    }

    private static func readToEnd(_ fd: Int32, url: String) throws -> Data {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return received }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let reason = errno == EAGAIN || errno == EWOULDBLOCK ? "no answer in time" : String(cString: strerror(errno))
                throw Failure(description: "\(url): \(reason) (after \(received.count) bytes)")
            }
            received.append(buffer, count: count)
        }
    }

    // MARK: - Response

    private static func parse(_ raw: Data, url: String, bodyless: Bool) throws -> Response {
        let separator = Data("\r\n\r\n".utf8)
        guard let end = raw.range(of: separator) else { throw Failure(description: "\(url): the response has no complete head") }
        let lines = String(decoding: raw[raw.startIndex..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw Failure(description: "\(url): not an HTTP status line: \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(raw[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body, url: url)
        } else if !bodyless, let length = headers["content-length"].flatMap(Int.init) {
            // The server closes after the response, so the stream holds exactly the body.
            guard body.count == length else {
                throw Failure(description: "\(url): \(body.count) bytes of body where Content-Length says \(length)")
            }
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// The body of a `Transfer-Encoding: chunked` response (extensions and trailers ignored).
    private static func dechunk(_ data: Data, url: String) throws -> Data {
        var body = Data()
        var index = data.startIndex
        let lineEnd = Data("\r\n".utf8)
        while true {
            guard let sizeEnd = data.range(of: lineEnd, in: index..<data.endIndex) else {
                throw Failure(description: "\(url): a chunk has no size line")
            }
            let sizeText = String(decoding: data[index..<sizeEnd.lowerBound], as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false)[0]
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw Failure(description: "\(url): bad chunk size \(sizeText)")
            }
            if size == 0 { return body }
            let start = sizeEnd.upperBound
            guard data.endIndex - start >= size + 2 else { throw Failure(description: "\(url): a chunk ended early") }
            body.append(data[start..<start + size])
            index = start + size + 2
        }
    }
}
