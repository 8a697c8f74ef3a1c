import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A running Hummingbird server: `start` returns once it listens (or throws why it cannot),
/// `stop` shuts it down.
public final class HTTPServer: Sendable {
    /// The port it listens on (the one chosen by the system when started with port 0).
    public let port: Int
    public let host: String
    private let group: ServiceGroup
    private let task: Task<Void, Never>

    private init(host: String, port: Int, group: ServiceGroup, task: Task<Void, Never>) {
        self.host = host
        self.port = port
        self.group = group
        self.task = task
    }

    public var baseURL: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Binds `host:port` and serves `router` until `stop()`.
    public static func start(host: String, port: Int, router: Router<BasicRequestContext>, logger: Logger) async throws -> HTTPServer {
        let (events, continuation) = AsyncStream<Result<Int, Error>>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "photocluster"),
            onServerRunning: { channel in continuation.yield(.success(channel.localAddress?.port ?? port)) },
            logger: logger)
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
            case .success(let bound): return HTTPServer(host: host, port: bound, group: group, task: task)
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
