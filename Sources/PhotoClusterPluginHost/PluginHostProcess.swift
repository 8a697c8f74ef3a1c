import CPluginHost
import Foundation
import PhotoClusterCore
import PhotoClusterProto
#if canImport(Glibc)
import Glibc
#endif

/// One plugin host as the worker sees it: the child process, its socket and the pixel arena
/// they share. It runs one request at a time, so a crash names exactly one photo.
///
/// Owned by one thread at a time: the pool hands an idle host to one caller (a lease) and takes
/// it back. `@unchecked Sendable` for that hand-over, which the pool's lock orders.
final class PluginHostProcess: @unchecked Sendable {
    /// Why the worker stopped waiting for a host and killed it.
    enum Interruption: Equatable {
        case cancelled
        case timedOut
    }

    enum LoadOutcome {
        /// Every file loaded; the reports in file order.
        case ready([Photocluster_V1_HostedPluginLoaded])
        /// It ended while loading the file after the last report.
        case died(after: [Photocluster_V1_HostedPluginLoaded], HostTermination)
        /// No word within the load time limit while loading the file after the last report; killed.
        case stalled(after: [Photocluster_V1_HostedPluginLoaded])
        case broken(String)
    }

    enum RunOutcome {
        /// The host answered (and lives). `interruption`: the worker had raised the cancel flag.
        case answered(Photocluster_V1_HostedResult, interruption: Interruption?)
        /// The host ended while running `step`.
        case died(step: Int, HostTermination)
        /// The worker killed the host: it ran on after the cancel flag for longer than the grace.
        case killed(step: Int, Interruption)
        /// The host answered with something that is not an answer; killed.
        case broken(step: Int, String)
    }

    /// How often a waiting request looks at its photo's cancellation and its time limit.
    static let pollMilliseconds: Int32 = 25

    let pid: pid_t
    private let channel: HostChannel
    private var arena: SharedArena?
    private var reaped = false

    /// Starts `executable plugin-host --parent PID -- FILES…`; its load reports follow on the
    /// socket (`awaitLoad`).
    init(executable: String, files: [String]) throws {
        var pair: [Int32] = [-1, -1]
        let made = ph_socketpair(&pair)
        guard made == 0 else { throw PluginHostUnavailable(reason: "socketpair: \(String(cString: strerror(-made)))") }
        defer { close(pair[1]) }
        let arguments = ["plugin-host", "--parent", String(getpid()), "--"] + files
        do {
            pid = try HostSpawner.shared.spawn(executable, arguments, childSocket: pair[1])
        } catch {
            close(pair[0])
            throw error
        }
        channel = HostChannel(descriptor: pair[0])
    }

    deinit {
        if !reaped { kill() }
    }

    // MARK: - Loading

    /// Reads the host's load reports until it is ready, dies or stays silent for `timeout`
    /// seconds (one plugin's load).
    func awaitLoad(timeout: TimeInterval) -> LoadOutcome {
        var reports: [Photocluster_V1_HostedPluginLoaded] = []
        var lastWord = ContinuousClock.now
        while true {
            let received: HostChannel.Received
            do {
                received = try channel.receive(timeoutMs: Self.pollMilliseconds * 4)
            } catch {
                kill()
                return .broken("\(error)")
            }
            switch received {
            case .message(let payload, let fd):
                if let fd { close(fd) }
                guard let message = try? Photocluster_V1_PluginHostToWorker(serializedBytes: payload) else {
                    kill()
                    return .broken("a load report that does not parse")
                }
                switch message.body {
                case .loaded(let report):
                    reports.append(report)
                    lastWord = ContinuousClock.now
                case .ready:
                    return .ready(reports)
                default:
                    kill()
                    return .broken("an answer before the host was ready")
                }
            case .closed:
                return .died(after: reports, waitForEnd())
            case .nothingYet:
                if let ended = reap(block: false) { return .died(after: reports, ended) }
                if ContinuousClock.now.seconds(since: lastWord) > timeout {
                    kill()
                    return .stalled(after: reports)
                }
            }
        }
    }

    // MARK: - Requests

    /// Copies the photo's pixels into the arena, making a larger arena when they do not fit.
    /// Returns the new arena's descriptor to pass with the request, if one was made.
    func stage(_ image: RGBAImage) throws -> (descriptor: Int32, bytes: Int)? {
        var made: (Int32, Int)?
        if arena == nil || arena!.pixelCapacity < image.byteCount {
            let fresh = try SharedArena.make(pixelBytes: image.byteCount)
            arena = fresh
            made = (fresh.descriptor, fresh.byteCount)
        }
        arena!.pixels.update(from: image.pixels, count: image.byteCount)
        return made
    }

    /// Sends `request` (with a new arena's descriptor, when `stage` made one) and waits for the
    /// answer. While it waits it watches `isCancelled` and the time each step has run: past
    /// `limit` seconds, or once cancelled, it raises the arena's cancel flag, and a host that has
    /// not answered `grace` seconds later is killed.
    func run(
        _ request: Photocluster_V1_HostedRun, passing fd: Int32?, limit: TimeInterval, grace: TimeInterval, isCancelled: () -> Bool
    ) -> RunOutcome {
        guard let arena else { return .broken(step: 0, "no pixels were staged") }
        arena.reset()
        var envelope = Photocluster_V1_WorkerToPluginHost()
        envelope.run = request
        do {
            try channel.send(try envelope.serializedData(), passing: fd)
        } catch {
            // A host that died while idle (killed from outside) cannot take the request.
            return .died(step: 0, waitForEnd())
        }
        var step = 0
        var stepStarted = ContinuousClock.now
        var interruption: (reason: Interruption, at: MonotonicInstant)?
        while true {
            let received: HostChannel.Received
            do {
                received = try channel.receive(timeoutMs: Self.pollMilliseconds)
            } catch {
                kill()
                return .broken(step: arena.step, "\(error)")
            }
            switch received {
            case .message(let payload, let fd):
                return answer(payload, fd, step: arena.step, interruption: interruption?.reason)
            case .closed:
                return .died(step: arena.step, waitForEnd())
            case .nothingYet:
                if let ended = reap(block: false) { return .died(step: arena.step, ended) }
                if arena.step != step {
                    step = arena.step
                    stepStarted = ContinuousClock.now
                }
                if let raised = interruption {
                    if ContinuousClock.now.seconds(since: raised.at) >= grace {
                        kill()
                        return .killed(step: step, raised.reason)
                    }
                } else if isCancelled() {
                    arena.raiseCancel()
                    interruption = (.cancelled, ContinuousClock.now)
                } else if ContinuousClock.now.seconds(since: stepStarted) >= limit {
                    arena.raiseCancel()
                    interruption = (.timedOut, ContinuousClock.now)
                }
            }
        }
    }

    private func answer(_ payload: Data, _ fd: Int32?, step: Int, interruption: Interruption?) -> RunOutcome {
        guard let message = try? Photocluster_V1_PluginHostToWorker(serializedBytes: payload), case .result(let result) = message.body else {
            if let fd { close(fd) }
            kill()
            return .broken(step: step, "an answer that does not parse")
        }
        if let fd {
            do {
                arena = try SharedArena(mapping: fd, byteCount: Int(clamping: result.arenaBytes))
            } catch {
                close(fd)
                kill()
                return .broken(step: step, "\(error)")
            }
        }
        return .answered(result, interruption: interruption)
    }

    /// The result the host left in the arena, in `reuse` when it has the same size (and may be
    /// overwritten), else in new memory. Nil when the size the host claims does not fit.
    func result(width: Int, height: Int, reusing reuse: RGBAImage?) -> RGBAImage? {
        guard let arena, width > 0, height > 0, width <= Int(Int32.max) / 4, height <= Int(Int32.max),
            width * height * 4 <= arena.pixelCapacity
        else { return nil }
        let image: RGBAImage
        if let reuse, reuse.width == width, reuse.height == height {
            image = reuse
        } else {
            guard let fresh = FilterPixels.allocate(width: width, height: height) else { return nil }
            image = fresh
        }
        image.pixels.update(from: arena.pixels, count: width * height * 4)
        return image
    }

    // MARK: - Ending

    /// Whether the host has ended (killed from outside while idle, say); reaps it if so.
    var hasEnded: Bool { reaped || reap(block: false) != nil }

    /// Kills the host (it may hold a half-filtered photo or spin for ever) and reaps it.
    @discardableResult
    func kill() -> HostTermination {
        if reaped { return .signal(SIGKILL) }
        _ = Glibc.kill(pid, SIGKILL)
        return reap(block: true) ?? .signal(SIGKILL)
    }

    /// The host closed its socket, which it does by ending: its status, waiting up to 2 s for
    /// the kernel to finish the exit (a plugin that closed the socket and runs on is killed).
    private func waitForEnd() -> HostTermination {
        let deadline = ContinuousClock.now.adding(seconds: 2)
        while ContinuousClock.now < deadline {
            if let ended = reap(block: false) { return ended }
            usleep(2_000)
        }
        return kill()
    }

    /// The host's end, once it has ended; nil while it runs (non-blocking).
    private func reap(block: Bool) -> HostTermination? {
        if reaped { return nil }
        var signal: Int32 = 0
        var status: Int32 = 0
        let result = ph_reap(pid, block ? 1 : 0, &signal, &status)
        guard result == pid else {
            // Not ours any more (ECHILD): someone else reaped it; count it as gone.
            if result < 0 { reaped = true; return .signal(SIGKILL) }
            return nil
        }
        reaped = true
        channel.close()
        return signal != 0 ? .signal(signal) : .exited(status)
    }
}
