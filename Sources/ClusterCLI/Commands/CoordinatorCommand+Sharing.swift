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
/// it loses the lease, after which it stands by again with a node made afresh from the journal.
extension CoordinatorCommand {
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
        var pending = events.makeAsyncIterator()
        while true {
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
            var term: LeadershipTerm?
            while term == nil {
                switch await pending.next() {
                case .leads(let won): term = won
                case .signal(let signal):
                    Terminal.error("coordinator: signal \(signal), shutting down (standing by)")
                    standby.stop()
                    await metrics?.stop()
                    context.terminate()
                    return
                case .lostLead, nil: continue
                }
            }
            guard let term else { continue }
            leadership.leading(token: term.lease.token, since: term.lease.since)
            Terminal.error("coordinator: leading on \(shown) with lease token \(term.lease.token); restoring the journal's jobs")
            var leading = configuration
            leading.leadership = term
            let node = startNode(leading, context: context, logger: logger) { sink.yield(.lostLead($0)) }
            let running = try await serve(node, logger: logger)
            leader.withLock { $0 = node }
            while true {
                guard let event = await pending.next() else { return }
                if case .signal(let signal) = event {
                    Terminal.error("coordinator: signal \(signal), shutting down and handing the lead over")
                    await running.stop()
                    await metrics?.stop()
                    context.terminate()
                    return
                }
                if case .lostLead(let reason) = event {
                    Terminal.error("coordinator: stepped down: \(reason); standing by again")
                    leader.withLock { $0 = nil }
                    leadership.standingBy()
                    await running.stop()
                    break
                }
            }
        }
    }
}
