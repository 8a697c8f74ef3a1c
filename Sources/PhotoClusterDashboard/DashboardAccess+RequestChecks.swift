import Foundation
import Hummingbird

/// What a request from the dashboard's pages must show besides its token: a `Host` the dashboard
/// answers to (against DNS rebinding), and, for a POST, JSON from the dashboard's own origin
/// (against cross-site requests, which a browser would send with the cookie). `DashboardGuard`
/// checks every dashboard request so; the HTTP API's guard checks the requests that the cookie
/// authenticates (`APIAccess.dashboardCookie`), and bearer-token requests not at all.
extension DashboardAccess {
    /// The cookie holding the token, set when a page is opened from the URL with `?token=`.
    public static let cookieName = "photocluster_token"

    /// Why a request is refused though its token may be good.
    public struct Refusal: Sendable, Equatable {
        public let status: HTTPResponse.Status
        public let reason: String
    }

    /// Nil when `request` comes under one of the dashboard's names and, for a POST, sends JSON
    /// from the dashboard's own origin; else why not (421 for the host, 403 for the POST).
    public func refusal(of request: Request) -> Refusal? {
        let host = Self.hostName(of: request.head.authority ?? "")
        guard hostNames.contains(host) else {
            return Refusal(status: .misdirectedRequest, reason:
                "this dashboard does not answer to the host \"\(request.head.authority ?? "")\" (it answers to \(hostNames.sorted().joined(separator: ", "))); "
                    + "to reach it under another name, start the coordinator with --http-host NAME")
        }
        guard request.method == .post else { return nil }
        return Self.postRefusal(request).map { Refusal(status: .forbidden, reason: $0) }
    }

    /// Why a POST is refused: not JSON, or not from a page of this dashboard (over HTTP or HTTPS,
    /// as the listener or a proxy in front of it serves the page).
    private static func postRefusal(_ request: Request) -> String? {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            return "a POST must send JSON (Content-Type: application/json), got \(request.headers[.contentType] ?? "no Content-Type")"
        }
        let authority = (request.head.authority ?? "").lowercased()
        let expected = "http://\(authority)"
        guard let origin = request.headers[.origin]?.lowercased(), origin == expected || origin == "https://\(authority)" else {
            return "a POST must come from this dashboard's own pages (Origin \(expected)), got "
                + (request.headers[.origin].map { "Origin \($0)" } ?? "no Origin header") + "; from a script, send the header `Origin: \(expected)`"
        }
        return nil
    }

    /// `Host` without its port (`[::1]:8080` → `::1`), lowercased.
    static func hostName(of authority: String) -> String {
        var host = Substring(authority.lowercased())
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            host = host[..<colon]
        }
        return String(host)
    }
}
