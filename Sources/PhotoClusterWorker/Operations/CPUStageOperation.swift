import Foundation
import PhotoClusterCore

/// Base class of the stages that keep a core busy (decode, filters, encode): each runs its
/// stage on a thread it first gives the engine's stage priority, so the threads that wait for
/// messages (the node's loop, ZeroMQ's I/O thread, the download thread) win the CPU from them
/// at once. The threads are libdispatch's, under the job's queues; a priority once raised stays
/// with the thread (lowering it back needs a privilege), which is why only stage work runs there.
/// A stage of a suspended job waits at the job's gate before it starts (see `JobGate`).
class CPUStageOperation: Operation, @unchecked Sendable {
    /// The photo the stage works on.
    let work: PhotoWork
    private let priority: ThreadPriority

    init(work: PhotoWork, priority: ThreadPriority) {
        self.work = work
        self.priority = priority
        super.init()
    }

    override final func main() {
        priority.applyToCurrentThread()
        work.waitWhileSuspended()
        runStage()
    }

    /// The stage's work (`main()` of a plain operation).
    func runStage() {}
}
