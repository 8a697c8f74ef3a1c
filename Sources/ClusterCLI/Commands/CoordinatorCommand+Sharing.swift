import Foundation
import Logging
import PhotoClusterCoordinator
import PhotoClusterCore
import PhotoClusterDashboard
import PhotoClusterMetrics
import PhotoClusterTransport

/// A started node with what serves it, stopped together.
struct RunningCoordinator {
    let node: CoordinatorNode
    let reloader: KeyReloader?
    let dashboard: HTTPServer?

    func stop() async {
        reloader?.stop()
        // Event streams end first: the HTTP server's stop waits for every open response.
        await node.closeLocalClients()
        await dashboard?.stop()
        node.stop()
    }
}

/// What a coordinator sharing its journal waits for: a signal, the lead, or losing it.
private enum SharingEvent: Sendable {
    case signal(Int32)
    case leads(LeadershipTerm)
    case lostLead(String)
}

/// `cluster coordinator --state postgres://…`: any number of coordinators share the database;
/// each stands by (binding nothing, serving only /metrics and /healthz) until it takes the lease,
/// then leads until a signal stops it (releasing the lease, so a standby takes over at once) or
/// it loses the lease. A coordinator that lost the lease exits at once with status 3, for its
/// supervisor to start it again as a standby: its loop has stopped mid-way (nothing of what it
/// had in hand may be acted on), and a fresh process leaves nothing of it behind — not an open
/// transaction on the lease row, not a request waiting on the stopped loop.
extension CoordinatorCommand {
    static let steppedDownStatus: Int32 = 3

    func runSharing(_ database: String, configuration: CoordinatorConfiguration, logger: Logger, context: ZMQContext) async throws {
        let (events, sink) = AsyncStream<SharingEvent>.makeStream()
        SignalWaiter.onTermination { sink.yield(.signal($0)) }
        let leadership = LeadershipMetrics()
        let leader = LockedBox<CoordinatorNode?>(nil)
        let metrics = await HTTPListenerOption(flag: "--metrics-bind", given: metricsBind, defaultAddress: "127.0.0.1:9464")
            .start(what: "metrics", router: MetricsRoutes.router {
                leadership.exporter.exposition() + (leader.current?.metricsExposition() ?? "")
            }, logger: logger)
        let holder = "\(ProcessInfo.processInfo.hostName) pid \(getpid())"
        let shown = PostgresURI.redacted(database)
        let standby = CoordinatorStandby(database: database, holder: holder, endpoint: clientBind, leaseSeconds: leaseSeconds)
        Terminal.error("coordinator: standing by on \(shown) as \(holder); takes the lead when no other coordinator's lease (\(leaseSeconds) s) holds it")
        standby.start(
            onLeader: { lease, problem in
                if let problem {
                    logger.warning("standby: cannot reach the journal's database: \(problem); trying again every \(String(format: "%.1f", leaseSeconds / 3)) s")
                } else if let lease {
                    logger.info("standby: \(lease.holder) leads (lease token \(lease.token), since \(lease.since)); waiting")
                }
            },
            onLead: { sink.yield(.leads($0)) })
        var pending = events.makeAsyncIterator()
        var running: RunningCoordinator?
        while let event = await pending.next() {
            switch event {
            case .leads(let term):
                leadership.leading(token: term.lease.token, since: term.lease.since)
                Terminal.error("coordinator: leading on \(shown) with lease token \(term.lease.token); restoring the journal's jobs")
                var leading = configuration
                leading.leadership = term
                let node = startNode(leading, context: context, logger: logger) { sink.yield(.lostLead($0)) }
                running = try await serve(node, logger: logger)
                leader.withLock { $0 = node }
            case .lostLead(let reason):
                Terminal.error("coordinator: stepped down: \(reason); exiting with status \(Self.steppedDownStatus) for its supervisor to start it again, as a standby")
                Foundation.exit(Self.steppedDownStatus)
            case .signal(let signal):
                Terminal.error("coordinator: signal \(signal), shutting down\(running == nil ? " (standing by)" : " and handing the lead over")")
                standby.stop()
                await running?.stop()
                await metrics?.stop()
                context.terminate()
                return
            }
        }
    }
}
