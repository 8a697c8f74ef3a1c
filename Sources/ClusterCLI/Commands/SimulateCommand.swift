import ArgumentParser
import Foundation
import PhotoClusterCoordinator
import PhotoClusterScheduling
import PhotoClusterSimulation

/// `cluster simulate --seeds N`: the coordinator's scheduling under simulated faults, seed by
/// seed (see `ClusterSimulation`).
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the coordinator's scheduling against simulated workers, faults and clients, one run per seed, checking its invariants.",
        discussion: """
            Each seed is a whole cluster in one thread: workers killed, stopped, cut off and restarted, messages delayed \
            and lost with their connections, the leading coordinator killed, stopped past its lease or handing over to a \
            standby on the same journal, viewports moved, jobs suspended and cancelled, poison photos, writes that \
            fail or hang. After every step the invariants are checked; a seed that breaks one prints the command that \
            replays it, step for step. Runs under deterministic hashing (the command restarts itself with \
            SWIFT_DETERMINISTIC_HASHING=1), so a seed makes the same run in every process.
            """
    )

    @Option(help: "How many seeds to run, from --first-seed.") var seeds: Int = 1000
    @Option(help: "The first seed.") var firstSeed: UInt64 = 1
    @Option(help: "Run this one seed only (with --trace, to replay it).") var seed: UInt64?
    @Option(help: "Simulated seconds of faults before the cluster heals and must finish every job.") var faultSeconds: Double = 20
    @Option(help: "Simulated workers.") var workers: Int = 4
    @Option(help: "Coordinator processes sharing the journal: a leader and its standbys.") var coordinators: Int = 2
    @Option(help: "Put this bug in on purpose, to see the invariants catch it: \(ClusterSimulation.PlantedBug.allCases.map(\.rawValue).joined(separator: ", ")).")
    var plant: ClusterSimulation.PlantedBug?
    @Option(help: "Strike the leading coordinator about every this many simulated seconds (killed, stopped, handing over), besides the fault mix's few.")
    var leaderFaultsEvery: Double?
    @Flag(help: "Print every event and action of the run (with --seed).") var trace = false

    func run() throws {
        ensureDeterministicHashing()
        let seedList: [UInt64] = seed.map { [$0] } ?? (0..<UInt64(max(0, seeds))).map { firstSeed &+ $0 }
        let options: @Sendable (UInt64) -> ClusterSimulation.Options = { [faultSeconds, workers, coordinators, trace, plant, leaderFaultsEvery] seed in
            ClusterSimulation.Options(seed: seed, faultSeconds: faultSeconds, workers: workers, coordinators: coordinators, trace: trace, plantedBug: plant, leaderFaultEvery: leaderFaultsEvery)
        }
        let started = Date()
        let outcomes = SeedRunner.run(seedList, options: options) { done in
            Terminal.error("\(done)/\(seedList.count) seeds")
        }
        let seconds = Date().timeIntervalSince(started)
        if trace { for line in outcomes.flatMap(\.trace) { print(line) } }
        let broken = outcomes.filter { $0.violation != nil }
        let steps = outcomes.map(\.steps)
        print("\(outcomes.count) seeds in \(String(format: "%.1f", seconds)) s: \(broken.count) broke an invariant; "
            + "steps per seed min \(steps.min() ?? 0), mean \(steps.isEmpty ? 0 : steps.reduce(0, +) / steps.count), max \(steps.max() ?? 0)")
        var leadership = ClusterSimulation.LeadershipTally()
        for outcome in outcomes {
            leadership.takeovers += outcome.leadership.takeovers
            leadership.leaderPauses += outcome.leadership.leaderPauses
            leadership.handOvers += outcome.leadership.handOvers
            leadership.stepDowns += outcome.leadership.stepDowns
            leadership.journalWrites += outcome.leadership.journalWrites
            leadership.fencedWrites += outcome.leadership.fencedWrites
        }
        print("leadership: \(leadership)")
        if outcomes.count == 1, let only = outcomes.first {
            print("seed \(only.seed): \(only.summary); digest \(String(only.digest, radix: 16))")
        }
        for outcome in broken.prefix(10) {
            print("seed \(outcome.seed) broke: \(outcome.violation!)")
            print("  replay: \(ClusterSimulation.replayCommand(seed: outcome.seed, options: options(outcome.seed)))")
        }
        if !broken.isEmpty { throw ExitCode(1) }
    }

    /// The run of a seed may depend on the order of a set or dictionary: that order is the same
    /// in every process only with deterministic hashing, set before the process starts.
    private func ensureDeterministicHashing() {
        guard ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] == nil else { return }
        setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1)
        var arguments = CommandLine.arguments.map { strdup($0) }
        arguments.append(nil)
        execv("/proc/self/exe", &arguments)
        Terminal.error("note: could not restart with SWIFT_DETERMINISTIC_HASHING=1 (\(String(cString: strerror(errno)))); a seed may replay differently in another process")
    }
}

/// Runs seeds on every core, reporting progress about once a second.
enum SeedRunner {
    static func run(_ seeds: [UInt64], options: @escaping @Sendable (UInt64) -> ClusterSimulation.Options, progress: (Int) -> Void) -> [ClusterSimulation.Outcome] {
        let results = ResultSlots(count: seeds.count)
        let threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let done = ManagedCounter()
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for index in stride(from: thread, to: seeds.count, by: threads) {
                    results.set(index, ClusterSimulation.run(options(seeds[index]), from: .now))
                    done.increment()
                }
            }
            finished.signal()
        }
        while finished.wait(timeout: .now() + 1) == .timedOut { progress(done.value) }
        return results.all
    }
}

private final class ResultSlots: @unchecked Sendable {
    private var slots: [ClusterSimulation.Outcome?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ outcome: ClusterSimulation.Outcome) { lock.withLock { slots[index] = outcome } }
    var all: [ClusterSimulation.Outcome] { lock.withLock { slots.compactMap { $0 } } }
}

private final class ManagedCounter: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

extension ClusterSimulation.PlantedBug: ExpressibleByArgument {}
