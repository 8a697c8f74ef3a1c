import Foundation
import Logging
import PhotoClusterCoordinator
import PhotoClusterCore
import PhotoClusterDashboard
import PhotoClusterHTTPAPI

/// The coordinator's dashboard and its token.
extension CoordinatorCommand {
    /// Starts the dashboard and the HTTP API (/v1) unless `--http off`. With CURVE it needs a token: from
    /// `--http-token-file`, or a new one (written to dashboard.token in a --state directory, mode
    /// 600) whose URL is printed for the operator.
    func startDashboard(_ node: CoordinatorNode, secured: Bool, logger: Logger) async throws -> HTTPServer? {
        let option = HTTPListenerOption(flag: "--http", given: http, defaultAddress: "127.0.0.1:8080")
        guard let address = option.address else { return nil }
        let token = secured ? try dashboardToken() : nil
        let access = DashboardAccess(
            token: token?.value, hostNames: DashboardAccess.hostNames(listeningOn: address.host, extra: httpHosts),
            tokenLocation: token?.location ?? "", isAdminToken: { node.tokenHolder(of: $0)?.isAdmin == true })
        let router = DashboardRoutes.router(for: node, access: access)
        // The dashboard's pages call /v1 with its cookie: the same tokens, checked as the dashboard checks them.
        let cookie = DashboardCookie(name: DashboardAccess.cookieName) { request in
            access.refusal(of: request).map { (Int($0.status.code), $0.reason) }
        }
        try HTTPAPI.add(to: router, coordinator: node, access: APIAccess(
            operatorToken: token?.value, limits: httpAPI.limits(maxManifestBytes: limits.limits.maxManifestBytes), dashboardCookie: cookie))
        let server = await option.start(what: "dashboard and HTTP API", router: router, tls: httpAPI.tls, logger: logger)
        if let server, let token {
            let shown = token.fromFile ? "TOKEN (the token in \(token.location))" : token.value
            Terminal.error("coordinator: dashboard at \(server.baseURL)/?token=\(shown)")
        }
        return server
    }

    private func dashboardToken() throws -> (value: String, location: String, fromFile: Bool) {
        if let httpTokenFile {
            let file = URL(fileURLWithPath: httpTokenFile)
            let text: String
            do {
                text = try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                throw CommandFailure.usage("--http-token-file \(file.path): \((error as NSError).localizedDescription)")
            }
            let mode = ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.posixPermissions] as? Int) ?? 0
            guard mode & 0o077 == 0 else {
                throw CommandFailure.usage("--http-token-file \(file.path) has mode \(String(mode, radix: 8)), expected 600 (chmod 600 it): a token others can read lets them in")
            }
            guard text.count >= 16, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.~".contains($0)) }) else {
                throw CommandFailure.usage("--http-token-file \(file.path) must hold one token of at least 16 letters, digits or -_.~")
            }
            return (text, file.path, true)
        }
        var generator = SystemRandomNumberGenerator()
        let value = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        // A database has no directory to put the file in (and coordinators sharing it would
        // overwrite each other's): the token is only printed; --http-token-file gives a fixed one.
        guard let state = stateDirectoryPath else { return (value, "the URL the coordinator printed at start", false) }
        let file = URL(fileURLWithPath: state, isDirectory: true).appendingPathComponent("dashboard.token")
        do {
            try DurableFile.write(Data((value + "\n").utf8), to: file, tag: "\(getpid())", permissions: 0o600)
        } catch {
            throw CommandFailure(message: "cannot write the dashboard's token: \(error) (check that --state names a writable directory)", status: 1)
        }
        return (value, file.path, false)
    }
}
