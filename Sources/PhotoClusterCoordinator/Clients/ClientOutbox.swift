import Foundation

/// Messages for clients whose connection could not take them yet, kept in order per client and
/// sent before anything newer for that client. Loop-owned.
///
/// A burst of events (a large job cancelled, thousands of photos settling at once) can be larger
/// than a client's connection holds (ZeroMQ's high-water mark, then the kernel's buffers). A
/// ROUTER refuses a message then instead of blocking, and a refused message was simply lost:
/// photo statuses, the job's summary a watcher waits for, or the reply to the very request that
/// caused the burst. A client that stops reading is dropped once `limit` messages wait for it,
/// so its backlog cannot grow without bound.
struct ClientOutbox {
    /// What became of one message handed to the socket.
    enum Delivery {
        case sent
        /// The connection is full: try again later.
        case full
        /// The client is gone: nothing will reach it.
        case gone
    }

    /// Messages waiting for one client before it counts as not reading.
    static let limit = 100_000

    private struct Backlog {
        var messages: [[Data]]
        var head = 0
    }

    private var backlogs: [Data: Backlog] = [:]

    var isEmpty: Bool { backlogs.isEmpty }

    /// Messages waiting for `client`.
    func waiting(for client: Data) -> Int {
        backlogs[client].map { $0.messages.count - $0.head } ?? 0
    }

    /// Sends `frames` to `client` through `deliver`, after whatever already waits for it.
    /// Returns false when `limit` messages already waited (the client is not reading): its
    /// backlog is dropped.
    mutating func send(_ frames: [Data], to client: Data, via deliver: ([Data]) -> Delivery) -> Bool {
        guard backlogs[client] != nil else {
            if deliver(frames) == .full { backlogs[client] = Backlog(messages: [frames]) }
            return true
        }
        guard waiting(for: client) < Self.limit else {
            backlogs.removeValue(forKey: client)
            return false
        }
        backlogs[client]!.messages.append(frames)
        flush(client, via: deliver)
        return true
    }

    /// Sends what waits, oldest first, until a connection is full again.
    mutating func flush(via deliver: ([Data]) -> Delivery) {
        for client in Array(backlogs.keys) { flush(client, via: deliver) }
    }

    private mutating func flush(_ client: Data, via deliver: ([Data]) -> Delivery) {
        // Taken out while it drains, so appending to it does not copy it.
        guard var backlog = backlogs.removeValue(forKey: client) else { return }
        while backlog.head < backlog.messages.count {
            switch deliver(backlog.messages[backlog.head]) {
            case .sent:
                backlog.head += 1
            case .gone:
                return
            case .full:
                if backlog.head > 1024 && backlog.head * 2 > backlog.messages.count {
                    backlog.messages.removeFirst(backlog.head)
                    backlog.head = 0
                }
                backlogs[client] = backlog
                return
            }
        }
    }
}
