import ArgumentParser
import PhotoClusterCoordinator
import PhotoClusterCore
import PhotoClusterScheduling

/// What one worker may claim of the coordinator (see `WorkerBudgets`).
struct WorkerBudgetOptions: ParsableArguments {
    @Option(name: .customLong("max-worker-concurrency"), help: ArgumentHelp("The most stage threads a worker is believed to have, whatever it announces: its credit is at most three graphs each.", valueName: "n"))
    var maxWorkerConcurrency = Int(WorkerBudgets.defaultMaxConcurrency)

    @Option(name: .customLong("assignment-timeout"), help: ArgumentHelp("Seconds a worker may hold a photo without progress on it before the photo goes to another worker, the attempt counted against --max-attempts.", valueName: "seconds"))
    var assignmentTimeout = WorkerBudgets.defaultAssignmentTimeout

    @Option(name: .customLong("max-result-bytes"), help: ArgumentHelp("The largest result a worker may send through the coordinator (default and at most: 256 MiB, one message); a larger one fails its photo.", valueName: "bytes"))
    var maxResultBytes: Int64?

    func validate() throws {
        guard (1...1_000_000).contains(maxWorkerConcurrency) else {
            throw ValidationError("--max-worker-concurrency must be between 1 and 1000000, got \(maxWorkerConcurrency)")
        }
        guard assignmentTimeout >= 1 else { throw ValidationError("--assignment-timeout must be at least 1 second") }
        if let maxResultBytes, !(1...ResultSizeLimit.defaultBytes).contains(maxResultBytes) {
            throw ValidationError("--max-result-bytes must be between 1 and \(ResultSizeLimit.defaultBytes) (the coordinator's message limit), got \(maxResultBytes)")
        }
    }

    var budgets: WorkerBudgets {
        WorkerBudgets(maxConcurrency: UInt32(maxWorkerConcurrency), assignmentTimeout: assignmentTimeout, maxResultBytes: maxResultBytes)
    }
}
