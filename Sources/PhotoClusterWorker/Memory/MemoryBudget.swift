import Foundation

/// The bytes a worker's photos may hold at once, and the queue of photos waiting for them.
///
/// A photo asks for its computed peak (`PhotoPeak`) before its pixels are allocated and gives
/// it back when it ends. One that fits while nobody waits is admitted at once: one lock, no
/// allocation. Otherwise it waits in priority order (visible before prefetch before the rest,
/// then first come first served). A smaller photo further back may go ahead of the first
/// waiting one only into room that photo could not use anyway (`budget − its need`), so it is
/// never starved. A photo that alone needs more than the budget is refused at once, and a
/// waiting photo that is cancelled leaves the queue.
public final class MemoryBudget: @unchecked Sendable {
    /// What `admit` decided.
    public enum Admission: Equatable, Sendable {
        case admitted(Grant)
        /// The photo was cancelled while it waited.
        case cancelled
        /// The photo alone needs more than the whole budget.
        case overBudget
    }

    /// Bytes held by one admitted photo; give it back with `release`.
    public struct Grant: Equatable, Sendable {
        public let bytes: Int
        /// Admitted ahead of a photo that waited first.
        let passed: Bool
        /// Had to wait.
        public let waited: Bool
    }

    /// What the budget looks like now (for metrics and status).
    public struct Snapshot: Equatable, Sendable {
        public var limitBytes: Int
        public var budgetBytes: Int
        public var inUseBytes: Int
        /// The most bytes ever held at once.
        public var peakInUseBytes: Int
        public var admittedPhotos: Int
        /// The most photos ever held at once.
        public var peakAdmittedPhotos: Int
        public var waitingPhotos: Int
        public var waitsTotal: Int
        public var refusalsTotal: Int
    }

    private final class Waiter {
        let need: Int
        var rank: Int
        let sequence: UInt64
        /// Where its rank is now, when it can change while it waits (a viewport change).
        let priority: MemoryPriority?
        var grant: Grant?

        init(need: Int, rank: Int, sequence: UInt64, priority: MemoryPriority?) {
            self.need = need
            self.rank = rank
            self.sequence = sequence
            self.priority = priority
        }
    }

    /// The process's limit and where it came from.
    public let limit: MemoryLimit
    /// Kept out of the budget: the process's baseline and the stage cache.
    public let reserveBytes: Int
    /// What photos may hold at once: `limit − reserve`.
    public let bytes: Int

    private let condition = NSCondition()
    private var inUse = 0
    private var peakInUse = 0
    private var admitted = 0
    private var peakAdmitted = 0
    /// Bytes held by photos that went ahead of a waiting one.
    private var passedBytes = 0
    private var waiters: [Waiter] = []
    private var sequence: UInt64 = 0
    private var waits = 0
    private var refusals = 0

    public init(limit: MemoryLimit, reserveBytes: Int) {
        self.limit = limit
        self.reserveBytes = max(0, reserveBytes)
        self.bytes = max(0, limit.bytes - self.reserveBytes)
    }

    /// What the process keeps besides photos: its code, heaps, threads and sockets.
    public static let baselineBytes = 128 << 20

    /// The budget for a process limited to `limit` that keeps a stage cache of `cacheBytes`.
    public convenience init(limit: MemoryLimit, cacheBytes: Int) {
        self.init(limit: limit, reserveBytes: Self.baselineBytes + cacheBytes)
    }

    /// The cache a budget of `limit` can afford: at most a quarter of what the baseline leaves.
    public static func cacheBytes(wanted: Int, limit: Int) -> Int {
        max(0, min(wanted, (limit - baselineBytes) / 4))
    }

    /// Queue rank of a priority band: higher goes first.
    public static func rank(visible: Bool, prefetch: Bool) -> Int { visible ? 2 : prefetch ? 1 : 0 }

    /// Waits until `need` bytes fit (or the photo is cancelled: `isCancelled` is asked whenever
    /// the queue moves, after `wakeWaiters`, and every `pollInterval`).
    /// `priority`, when given, is asked for the photo's rank again whenever the queue is
    /// reordered (see `reorder`).
    public func admit(
        _ need: Int, rank: Int, priority: MemoryPriority? = nil, pollInterval: TimeInterval = 0.25, isCancelled: () -> Bool
    ) -> Admission {
        let need = max(0, need)
        condition.lock()
        if need > bytes {
            refusals += 1
            condition.unlock()
            return .overBudget
        }
        if waiters.isEmpty && inUse + need <= bytes {
            let grant = Grant(bytes: need, passed: false, waited: false)
            take(grant)
            condition.unlock()
            return .admitted(grant)
        }
        sequence += 1
        waits += 1
        let waiter = Waiter(need: need, rank: rank, sequence: sequence, priority: priority)
        let index = waiters.firstIndex { $0.rank < rank } ?? waiters.endIndex
        waiters.insert(waiter, at: index)
        if grantWaiting() { condition.broadcast() }
        while waiter.grant == nil {
            if isCancelled() {
                waiters.removeAll { $0 === waiter }
                // The queue may move now that this one has left it.
                if grantWaiting() { condition.broadcast() }
                condition.unlock()
                return .cancelled
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: pollInterval))
        }
        condition.unlock()
        return .admitted(waiter.grant!)
    }

    /// Gives a photo's bytes back; waiting photos that now fit are admitted.
    public func release(_ grant: Grant) {
        condition.lock()
        inUse -= grant.bytes
        admitted -= 1
        if grant.passed { passedBytes -= grant.bytes }
        let moved = grantWaiting()
        condition.unlock()
        if moved { condition.broadcast() }
    }

    /// Counts a photo refused before it asked (its result was over another limit first).
    func recordRefusal() {
        condition.lock()
        refusals += 1
        condition.unlock()
    }

    /// Sorts the waiting photos again by their priorities' ranks now (after a viewport change),
    /// and admits those that now fit.
    public func reorder() {
        condition.lock()
        guard !waiters.isEmpty else { return condition.unlock() }
        for waiter in waiters { if let priority = waiter.priority { waiter.rank = priority.memoryRank } }
        waiters.sort { ($0.rank, $1.sequence) > ($1.rank, $0.sequence) }
        let moved = grantWaiting()
        condition.unlock()
        if moved { condition.broadcast() }
    }

    /// Lets waiting photos check whether they were cancelled.
    public func wakeWaiters() {
        condition.lock()
        let anyone = !waiters.isEmpty
        condition.unlock()
        if anyone { condition.broadcast() }
    }

    public var snapshot: Snapshot {
        condition.lock()
        defer { condition.unlock() }
        return Snapshot(
            limitBytes: limit.bytes, budgetBytes: bytes, inUseBytes: inUse, peakInUseBytes: peakInUse, admittedPhotos: admitted,
            peakAdmittedPhotos: peakAdmitted, waitingPhotos: waiters.count, waitsTotal: waits, refusalsTotal: refusals)
    }

    /// Under the lock.
    private func take(_ grant: Grant) {
        inUse += grant.bytes
        admitted += 1
        peakInUse = max(peakInUse, inUse)
        peakAdmitted = max(peakAdmitted, admitted)
        if grant.passed { passedBytes += grant.bytes }
    }

    /// Admits the waiting photos that fit, in order (see the type's comment). Under the lock;
    /// true when any was admitted.
    @discardableResult
    private func grantWaiting() -> Bool {
        var blockedNeed: Int?
        var moved = false
        var index = 0
        while index < waiters.count {
            let waiter = waiters[index]
            let fits = inUse + waiter.need <= bytes
            // Behind a photo that does not fit yet, another goes ahead only into room that one
            // could not use anyway, so it is never starved.
            let passes: Bool? = if let blockedNeed {
                fits && passedBytes + waiter.need <= bytes - blockedNeed ? true : nil
            } else {
                fits ? false : nil
            }
            guard let passes else {
                if blockedNeed == nil { blockedNeed = waiter.need }
                index += 1
                continue
            }
            let grant = Grant(bytes: waiter.need, passed: passes, waited: true)
            take(grant)
            waiter.grant = grant
            waiters.remove(at: index)
            moved = true
        }
        return moved
    }
}

/// A waiting photo's priority, asked again when the queue is reordered (`MemoryBudget.reorder`).
public protocol MemoryPriority: AnyObject, Sendable {
    /// Higher goes first (see `MemoryBudget.rank`).
    var memoryRank: Int { get }
}
