/// A dictionary whose values stay where they are: each lives in a slot of an array, found by key.
///
/// The coordinator changes its jobs and workers in place tens of times per photo
/// (`jobs[id]?.markDone(…)`, `workers[id]?.credits += 1`). Through a `Dictionary` each such change
/// takes the value out of the table and puts it back (about 400 ns for a job, measured, several
/// times the rest of the change); here it is a key lookup and an access to an array element.
/// Read and written like a dictionary; iteration goes in slot order, which means nothing.
package struct SlotTable<Key: Hashable, Value>: Sequence {
    private var slots: [Value?] = []
    private var slotOf: [Key: Int] = [:]
    private var keyOf: [Key?] = []
    private var freeSlots: [Int] = []

    package init() {}

    package var count: Int { slotOf.count }
    package var isEmpty: Bool { slotOf.isEmpty }
    package var keys: Dictionary<Key, Int>.Keys { slotOf.keys }
    package var values: some Sequence<Value> { slots.lazy.compactMap { $0 } }

    package subscript(key: Key) -> Value? {
        get { slotOf[key].flatMap { slots[$0] } }
        _modify {
            if let slot = slotOf[key] {
                yield &slots[slot]
                if slots[slot] == nil { release(slot, of: key) }
            } else {
                var added: Value?
                yield &added
                if let added { _ = insert(added, for: key) }
            }
        }
    }

    package subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        _modify {
            let slot = slotOf[key] ?? insert(defaultValue(), for: key)
            yield &slots[slot]!
        }
    }

    @discardableResult
    package mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = slotOf[key] else { return nil }
        let value = slots[slot]
        release(slot, of: key)
        return value
    }

    package func mapValues<T>(_ transform: (Value) throws -> T) rethrows -> [Key: T] {
        var mapped: [Key: T] = [:]
        for (key, value) in self { mapped[key] = try transform(value) }
        return mapped
    }

    package func makeIterator() -> AnyIterator<(key: Key, value: Value)> {
        var position = 0
        return AnyIterator {
            while position < slots.count {
                defer { position += 1 }
                if let key = keyOf[position], let value = slots[position] { return (key, value) }
            }
            return nil
        }
    }

    private mutating func insert(_ value: Value, for key: Key) -> Int {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = value
            keyOf[slot] = key
        } else {
            slot = slots.count
            slots.append(value)
            keyOf.append(key)
        }
        slotOf[key] = slot
        return slot
    }

    private mutating func release(_ slot: Int, of key: Key) {
        slots[slot] = nil
        keyOf[slot] = nil
        slotOf.removeValue(forKey: key)
        freeSlots.append(slot)
    }
}
