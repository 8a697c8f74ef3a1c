import Foundation
import Logging
import PhotoClusterCoordinator
import PhotoClusterTransport

/// Reloads the coordinator's authorized keys without a restart: on SIGHUP, and when a key file
/// or directory changes (checked every `interval` seconds). Keys that do not parse leave the keys
/// in force as they were, with an error naming the file and line.
///
/// `@unchecked Sendable` invariant: `fingerprint` is touched only on `queue`, a serial queue that
/// runs both the signal handler and the timer.
final class KeyReloader: @unchecked Sendable {
    static let interval: TimeInterval = 2

    private let sources: [URL]
    private let node: CoordinatorNode
    private let logger: Logger
    private let queue = DispatchQueue(label: "photocluster.key-reloader")
    private var fingerprint: [String]
    private var signalSource: DispatchSourceSignal?
    private var timer: DispatchSourceTimer?

    init(sources: [URL], node: CoordinatorNode, logger: Logger) {
        self.sources = sources
        self.node = node
        self.logger = logger
        fingerprint = AuthorizedKeys.fingerprint(of: sources)
    }

    func start() {
        signal(SIGHUP, SIG_IGN)
        let signalSource = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        signalSource.setEventHandler { [self] in reload(because: "SIGHUP") }
        signalSource.resume()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        timer.setEventHandler { [self] in
            let now = AuthorizedKeys.fingerprint(of: sources)
            if now != fingerprint { reload(because: "a key file changed") }
        }
        timer.resume()
        self.signalSource = signalSource
        self.timer = timer
    }

    func stop() {
        timer?.cancel()
        signalSource?.cancel()
    }

    private func reload(because reason: String) {
        fingerprint = AuthorizedKeys.fingerprint(of: sources)
        do {
            let keys = try AuthorizedKeys(contentsOf: sources)
            logger.info("reloading the authorized keys (\(reason))")
            node.replaceAuthorizedKeys(keys)
        } catch {
            logger.error("cannot reload the authorized keys (\(reason)): \(error); the keys in force stay until it is fixed")
        }
    }
}
