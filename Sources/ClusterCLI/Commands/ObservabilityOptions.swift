import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PhotoClusterDashboard

/// `--log-level`, shared by the long-running roles.
struct LogOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var level: Logger.Level = .info

    /// Starts logging and returns the logger of one role (`coordinator`, `worker`).
    func start(role: String) -> Logger {
        LogOutput.bootstrap(level: level)
        return Logger(label: role)
    }
}

/// An HTTP listener given as `HOST:PORT`, or `off`. A default address that is busy only costs a
/// warning (several workers on one host); an address the user chose must work.
struct HTTPListenerOption {
    let flag: String
    let given: String?
    let defaultAddress: String

    static func validate(_ value: String?, flag: String) throws {
        guard let value, value != "off" else { return }
        guard ListenAddress(value) != nil else { throw ValidationError("\(flag) takes HOST:PORT (for example 127.0.0.1:9464) or off, got \"\(value)\"") }
    }

    /// Where it listens; nil when it is off.
    var address: ListenAddress? {
        let text = given ?? defaultAddress
        return text == "off" ? nil : ListenAddress(text)
    }

    /// Starts the server, or returns nil when it is off or its default address is taken.
    func start(what: String, router: Router<BasicRequestContext>, tls: TLSFiles? = nil, logger: Logger) async -> HTTPServer? {
        guard let address else { return nil }
        do {
            let server = try await HTTPServer.start(host: address.host, port: address.port, router: router, tls: tls, logger: logger.quiet)
            logger.info("\(what) at \(server.baseURL)")
            return server
        } catch let problem as TLSFileProblem {
            CommandFailure(message: "cannot serve \(what) over TLS: \(problem) (check --http-tls-cert and --http-tls-key)", status: 2).exit()
        } catch {
            if given == nil {
                logger.warning("\(what) is off: cannot listen on \(address) (\(error)); choose an address with \(flag) HOST:PORT")
                return nil
            }
            CommandFailure(message: "cannot listen on \(address) for \(what): \(error) (is the port in use? choose another with \(flag), or \(flag) off)", status: 1).exit()
        }
    }
}

extension Logger {
    /// The HTTP server's own logger: its per-request lines only at debug level.
    var quiet: Logger {
        var logger = Logger(label: "\(label) http")
        logger.logLevel = Swift.max(logLevel, .warning)
        return logger
    }
}
