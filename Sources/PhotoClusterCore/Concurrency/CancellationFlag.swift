import Synchronization

/// A flag set once ("stop") and read often, without a lock.
///
/// Stage threads run at a low priority and poll their photo's flag between rows and scans; the
/// worker's loop sets it when a cancel arrives. Were it behind a lock, a stage thread preempted
/// while holding that lock would make the loop (and the acknowledgement the viewport waits for)
/// wait until the scheduler got round to a low-priority thread again: tens of milliseconds on
/// a busy host.
public final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    public init() {}

    public var isRaised: Bool { raised.load(ordering: .acquiring) }

    public func raise() { raised.store(true, ordering: .releasing) }
}
