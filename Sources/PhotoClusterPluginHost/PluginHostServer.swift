import CPluginHost
import Foundation
import PhotoClusterCore
import PhotoClusterPlugins
import PhotoClusterProto
#if canImport(Glibc)
import Glibc
#endif

/// The plugin host's side: loads the plugin files, reports each, then runs the worker's
/// requests one at a time on the pixels in the shared arena until the worker closes the socket.
///
/// Everything runs on the process's main thread; a plugin that crashes ends this process only.
public enum PluginHostServer {
    /// Runs the host on descriptor 3; returns the exit status (0 when the worker hung up).
    public static func run(parent: pid_t, files: [String]) -> Int32 {
        // Dies with the worker even if the worker is SIGKILLed; a worker already gone means
        // there is nobody to serve.
        guard ph_die_with_parent(parent) == 0 else { return 3 }
        // Ctrl-C and a terminal's hang-up reach the whole process group, and systemd's stop
        // signal the whole unit: the worker decides when its hosts end (it kills them as it
        // leaves, and the kernel kills them if it dies). A host killed by these first would
        // fail its photo as a crash while the worker was handing it back.
        for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { signal(number, SIG_IGN) }
        let channel = HostChannel(descriptor: PH_HOST_SOCKET_FD)
        var registry = FilterRegistry.builtIn
        do {
            for file in files {
                // Sent as soon as each file is loaded, so if the next one crashes the host, the
                // worker knows which one it was.
                let report = PluginLoader.load(file: URL(fileURLWithPath: file), into: &registry)
                try send(.loaded(.with {
                    $0.file = file
                    $0.filters = report.loaded.map(HostedFilterMapping.message)
                    $0.refusals = report.refused.map(\.reason)
                }), on: channel)
            }
            try send(.ready(Photocluster_V1_HostedReady()), on: channel)
            var session = Session(registry: registry)
            while true {
                guard case .message(let payload, let fd) = try channel.receive(timeoutMs: -1) else { return 0 }
                guard let message = try? Photocluster_V1_WorkerToPluginHost(serializedBytes: payload), case .run(let request) = message.body else {
                    if let fd { close(fd) }
                    return 4
                }
                let (result, passing) = session.run(request, arenaDescriptor: fd)
                try send(.result(result), on: channel, passing: passing)
            }
        } catch {
            // The worker is gone or the socket broke: nothing to answer.
            return 0
        }
    }

    private static func send(_ body: Photocluster_V1_PluginHostToWorker.OneOf_Body, on channel: HostChannel, passing fd: Int32? = nil) throws {
        var message = Photocluster_V1_PluginHostToWorker()
        message.body = body
        try channel.send(try message.serializedData(), passing: fd)
    }

    /// The host's state between requests: its filters and the arena it shares with the worker.
    private struct Session {
        let registry: FilterRegistry
        var arena: SharedArena?

        init(registry: FilterRegistry) {
            self.registry = registry
        }

        /// Runs a chain; returns the answer and a new arena's descriptor to pass with it.
        mutating func run(_ request: Photocluster_V1_HostedRun, arenaDescriptor fd: Int32?) -> (Photocluster_V1_HostedResult, Int32?) {
            if let fd {
                do {
                    arena = try SharedArena(mapping: fd, byteCount: Int(clamping: request.arenaBytes))
                } catch {
                    close(fd)
                    return (Self.failure(step: 0, "the plugin host cannot map the photo's pixels: \(error)"), nil)
                }
            }
            let width = Int(request.width), height = Int(request.height)
            guard let arena, width > 0, height > 0, width * height * 4 <= arena.pixelCapacity else {
                return (Self.failure(step: 0, "the request's \(request.width)x\(request.height) pixels do not fit the shared memory"), nil)
            }
            var current: (pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int) = (arena.pixels, width, height)
            var owned: RGBAImage?  // the newest image a plugin made, when not in the arena
            for (index, step) in request.steps.enumerated() {
                arena.setStep(index)
                guard let stage = registry.stages[step.filter] as? PluginFilterStage else {
                    return (Self.failure(step: index, "the plugin host has no filter named \(step.filter)"), nil)
                }
                let flag = UnsafeMutableRawPointer(arena.cancelFlag)
                do {
                    let output = try stage.run(
                        pixels: current.pixels, width: current.width, height: current.height, values: step.values,
                        isCancelled: ph_flag_is_set, context: flag)
                    if case .replaced(let image) = output {
                        owned = image
                        current = (image.pixels, image.width, image.height)
                    }
                } catch is FilterCancelled {
                    return (.with { $0.cancelled = true; $0.failedStep = Int32(index) }, nil)
                } catch let failure as FilterFailure {
                    return (Self.failure(step: index, failure.reason), nil)
                } catch {
                    return (Self.failure(step: index, "\(error)"), nil)
                }
            }
            var passing: Int32?
            var answer = Photocluster_V1_HostedResult()
            if let owned {
                // A new size: into the arena, or into a larger one the worker maps from the answer.
                if owned.byteCount > arena.pixelCapacity {
                    do {
                        let larger = try SharedArena.make(pixelBytes: owned.byteCount)
                        self.arena = larger
                        passing = larger.descriptor
                        answer.arenaBytes = UInt64(larger.byteCount)
                    } catch {
                        return (Self.failure(step: request.steps.count - 1, "no shared memory for the result: \(error)"), nil)
                    }
                }
                self.arena!.pixels.update(from: owned.pixels, count: owned.byteCount)
            }
            answer.succeeded = true
            answer.width = Int32(current.width)
            answer.height = Int32(current.height)
            return (answer, passing)
        }

        private static func failure(step: Int, _ reason: String) -> Photocluster_V1_HostedResult {
            .with {
                $0.failedStep = Int32(step)
                $0.error = reason
            }
        }
    }
}
