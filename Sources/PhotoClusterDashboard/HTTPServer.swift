import Foundation
import Hummingbird
import HummingbirdTLS
import NIOCore
import Logging
import ServiceLifecycle

/// A running Hummingbird server: `start` returns once it listens (or throws why it cannot),
/// `stop` shuts it down.
public final class HTTPServer: Sendable {
    /// The port it listens on (the one chosen by the system when started with port 0).
    public let port: Int
    public let host: String
    public let usesTLS: Bool
    private let group: ServiceGroup
    private let task: Task<Void, Never>

    private init(host: String, port: Int, usesTLS: Bool, group: ServiceGroup, task: Task<Void, Never>) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.group = group
        self.task = task
    }

    public var baseURL: String { "\(usesTLS ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Binds `host:port` and serves `router` until `stop()`; over TLS when given a certificate.
    public static func start(host: String, port: Int, router: Router<BasicRequestContext>, tls: TLSFiles? = nil, logger: Logger) async throws -> HTTPServer {
        let (events, continuation) = AsyncStream<Result<Int, Error>>.makeStream()
        let configuration = ApplicationConfiguration(address: .hostname(host, port: port), serverName: "photocluster")
        let running: @Sendable (any NIOCore.Channel) async -> Void = { channel in continuation.yield(.success(channel.localAddress?.port ?? port)) }
        let app: any ApplicationProtocol
        if let tls {
            app = Application(router: router, server: try .tls(.http1(), tlsConfiguration: try tls.serverConfiguration()), configuration: configuration,
                              onServerRunning: running, logger: logger)
        } else {
            app = Application(router: router, configuration: configuration, onServerRunning: running, logger: logger)
        }
        // A group of one, so `stop` can shut the server down gracefully (open requests finish).
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task {
            do {
                try await group.run()
            } catch {
                continuation.yield(.failure(error))
            }
            continuation.finish()
        }
        for await event in events {
            switch event {
            case .success(let bound): return HTTPServer(host: host, port: bound, usesTLS: tls != nil, group: group, task: task)
            case .failure(let error): throw error
            }
        }
        throw CancellationError()
    }

    public func stop() async {
        await group.triggerGracefulShutdown()
        await task.value
    }
}

/// `HOST:PORT` as given to `--metrics-bind` and `--http` (IPv6 hosts in brackets).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A certificate chain and its private key, PEM files (`--http-tls-cert`, `--http-tls-key`).
public struct TLSFiles: Sendable, Equatable {
    public let certificate: String
    public let privateKey: String

    public init(certificate: String, privateKey: String) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// The server's TLS configuration; an error names the file that does not load.
    func serverConfiguration() throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw TLSFileProblem(file: certificate, what: "a PEM certificate chain", error: error)
        }
        guard !chain.isEmpty else { throw TLSFileProblem(file: certificate, what: "a PEM certificate chain", error: nil) }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: privateKey, format: .pem)
        } catch {
            throw TLSFileProblem(file: privateKey, what: "a PEM private key", error: error)
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}

public struct TLSFileProblem: Error, CustomStringConvertible {
    let file: String
    let what: String
    let error: Error?

    public var description: String { "\(file) does not hold \(what)\(error.map { " (\($0))" } ?? "")" }
}
