import PhotoClusterCore

/// Which of several coordinator endpoints a socket talks to now, and when it may try the next.
///
/// Only the leading coordinator binds its ports; a standby binds none until it leads. A worker
/// or client keeps one connection, to one endpoint, and moves to the next in the list
/// (wrapping) when the current one refuses connections or falls silent. Connecting to all of
/// them at once would not do: a DEALER round-robins its messages across its connections, half
/// of them to a frozen old leader.
///
/// Moving is cheap when nothing answers: an endpoint is tried again no sooner than `interval`
/// after its last try, and the interval doubles (up to `maxInterval`) with each full turn of
/// the list in which no coordinator answered. A value type with time passed in; its owner (the
/// worker's or client's loop thread) keeps it.
public struct EndpointRotation: Sendable {
    public let endpoints: [String]
    public private(set) var index = 0
    /// Times the socket moved to another endpoint.
    public private(set) var moves = 0
    private var lastTried: [MonotonicInstant?]
    private var interval: Double
    private let firstInterval: Double
    private let maxInterval: Double
    /// Whether a coordinator answered since the list last wrapped around.
    private var answeredThisTurn = false

    public init(_ endpoints: [String], firstInterval: Double = 0.25, maxInterval: Double = 1) {
        precondition(!endpoints.isEmpty, "an endpoint rotation needs at least one endpoint")
        self.endpoints = endpoints
        self.lastTried = Array(repeating: nil, count: endpoints.count)
        self.firstInterval = firstInterval
        self.interval = firstInterval
        self.maxInterval = maxInterval
    }

    /// The endpoint in use.
    public var current: String { endpoints[index] }
    /// Whether there is anywhere else to go: with one endpoint the socket stays, and libzmq's
    /// own reconnection does the rest, as it always has.
    public var canMove: Bool { endpoints.count > 1 }

    /// A connection to the current endpoint was opened at `now`.
    public mutating func tried(at now: MonotonicInstant) {
        lastTried[index] = now
    }

    /// A coordinator answered: the next time nothing does, the back-off starts afresh.
    public mutating func answered() {
        answeredThisTurn = true
        interval = firstInterval
    }

    /// Moves to the next endpoint; returns the endpoint left, the one to try, and when it may be
    /// tried (now, or later if it was tried less than the back-off interval ago).
    public mutating func move(at now: MonotonicInstant) -> (from: String, to: String, openAt: MonotonicInstant) {
        let from = current
        index = (index + 1) % endpoints.count
        moves += 1
        if index == 0 {
            if !answeredThisTurn { interval = min(interval * 2, maxInterval) }
            answeredThisTurn = false
        }
        let openAt = lastTried[index].map { max(now, $0.adding(seconds: interval)) } ?? now
        return (from, current, openAt)
    }
}
