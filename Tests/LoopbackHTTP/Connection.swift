import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Serves the requests of one accepted socket, then closes it.
///
/// On a keep-alive server the connection waits for the next request after each plain response
/// (up to the 10-second receive timeout, or until `stop()`); a delayed or trickled response, a
/// client that asks for `Connection: close`, or HTTP/1.0 ends it after the response. Requests
/// are read one at a time: a client that pipelines loses the requests sent behind the first.
struct Connection {
    let fd: Int32
    let state: ServerState

    func serve() {
        defer { state.release(fd) }
        Socket.setTimeouts(fd, seconds: 10)
        if state.keepAlive { Socket.setNoDelay(fd) }
        while let head = Socket.readHead(fd) {
            guard let request = HTTPRequest(head: head) else {
                _ = Socket.sendAll(fd, HTTPResponse(status: 400).head(includeLength: true))
                return
            }
            state.recordRequest(request.path)
            let response = state.handler(request)
            if response.delayBeforeHeaders > 0,
               Socket.waitForHangup(fd, seconds: response.delayBeforeHeaders, cancelled: { state.isStopped }) {
                recordAbortedUnlessStopped()
                return
            }
            let keepOpen = state.keepAlive && request.allowsKeepAlive && response.delayBeforeHeaders == 0 && response.trickle == nil
            guard send(response, bodyless: request.method == "HEAD", keepAlive: keepOpen) else {
                recordAbortedUnlessStopped()
                return
            }
            if keepOpen && !state.isStopped { continue }
            // Let the client read to the end before the socket goes away.
            shutdown(fd, Int32(SHUT_WR))
            _ = Socket.waitForHangup(fd, seconds: 1, cancelled: { state.isStopped })
            return
        }
    }

    /// A response cut short by `stop()` is not one the client hung up on.
    private func recordAbortedUnlessStopped() {
        if !state.isStopped { state.recordAborted() }
    }

    /// False if the client went away before the whole response was sent.
    private func send(_ response: HTTPResponse, bodyless: Bool, keepAlive: Bool) -> Bool {
        let head = response.head(includeLength: true, keepAlive: keepAlive)
        if bodyless { return Socket.sendAll(fd, head) }
        let chunked = response.isChunked
        if !chunked && response.trickle == nil {
            // One write, as a web server's writev: the client wakes once for a small response.
            return Socket.sendAll(fd, head + response.body)
        }
        guard Socket.sendAll(fd, head) else { return false }
        let body = response.body
        let step = max(1, response.trickle?.chunk ?? body.count)
        var offset = 0
        while offset < body.count {
            if offset > 0, let trickle = response.trickle,
               Socket.waitForHangup(fd, seconds: trickle.interval, cancelled: { state.isStopped }) {
                return false
            }
            let piece = body.subdata(in: offset..<min(body.count, offset + step))
            guard Socket.sendAll(fd, chunked ? Self.chunk(piece) : piece) else { return false }
            offset += piece.count
        }
        return chunked ? Socket.sendAll(fd, Data("0\r\n\r\n".utf8)) : true
    }

    private static func chunk(_ piece: Data) -> Data {
        Data((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Data("\r\n".utf8)
    }
}
