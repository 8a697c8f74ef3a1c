import Synchronization

/// A queue many threads put into and one thread empties, without a lock.
///
/// Threads of every priority put into it, the low-priority stage threads included; behind a
/// lock, one of them preempted while holding it would make the consumer (a node's loop) wait
/// until the scheduler came back to it: tens of milliseconds on a busy host. Here a put is one
/// compare-and-swap on the top of a stack, and the consumer takes the whole stack at once.
public final class MPSCQueue<Element>: @unchecked Sendable {
    private struct Node {
        var element: Element
        var next: UnsafeMutablePointer<Node>?
    }

    private let top = Atomic<UnsafeMutablePointer<Node>?>(nil)

    public init() {}

    deinit { _ = takeAll() }

    /// Adds `element`; from any thread.
    public func put(_ element: Element) {
        let node = UnsafeMutablePointer<Node>.allocate(capacity: 1)
        node.initialize(to: Node(element: element, next: nil))
        var expected = top.load(ordering: .relaxed)
        while true {
            node.pointee.next = expected
            let (exchanged, current) = top.compareExchange(expected: expected, desired: node, ordering: .releasing)
            if exchanged { return }
            expected = current
        }
    }

    /// Everything put so far, oldest first. Several threads may call it; each element goes to one.
    public func takeAll() -> [Element] {
        var node = top.exchange(nil, ordering: .acquiring)
        var taken: [Element] = []
        while let current = node {
            taken.append(current.pointee.element)
            node = current.pointee.next
            current.deinitialize(count: 1)
            current.deallocate()
        }
        return taken.reversed()
    }

    public var isEmpty: Bool { top.load(ordering: .relaxed) == nil }
}
