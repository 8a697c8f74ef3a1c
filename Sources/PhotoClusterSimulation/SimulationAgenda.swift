/// The simulation's timeline: events by virtual time (microseconds), and among events at the
/// same time, the order they were scheduled in, so a seed always replays the same order.
package struct SimulationAgenda<Event> {
    private struct Entry {
        let time: Int64
        let order: UInt64
        let event: Event
        func precedes(_ other: Entry) -> Bool { (time, order) < (other.time, other.order) }
    }

    private var heap: [Entry] = []
    private var scheduled: UInt64 = 0

    package var isEmpty: Bool { heap.isEmpty }

    package mutating func schedule(_ event: Event, at time: Int64) {
        scheduled += 1
        heap.append(Entry(time: time, order: scheduled, event: event))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The earliest event, removed.
    package mutating func next() -> (time: Int64, event: Event)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count && heap[right].precedes(heap[smallest]) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return (first.time, first.event)
    }
}
