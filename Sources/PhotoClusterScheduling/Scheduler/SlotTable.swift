/// A dictionary whose values stay where they are: each lives in a slot of an array, found by key.
///
/// The coordinator changes its jobs and workers in place tens of times per photo
/// (`jobs[id]?.markDone(…)`, `workers[id]?.credits += 1`). Through a `Dictionary` each such change
/// takes the value out of the table and puts it back (about 400 ns for a job, measured, several
/// times the rest of the change); here it is a key lookup and an access to an array element.
/// Read and written like a dictionary; iteration goes in slot order, which means nothing.
///
/// Inlinable: the shell (another module) reads the core's tables for every photo, and a generic
/// call across modules would not be specialized.
package struct SlotTable<Key: Hashable, Value>: Sequence {
    @usableFromInline var slots: [Value?] = []
    @usableFromInline var slotOf: [Key: Int] = [:]
    @usableFromInline var keyOf: [Key?] = []
    @usableFromInline var freeSlots: [Int] = []

    @inlinable package init() {}

    @inlinable package var count: Int { slotOf.count }
    @inlinable package var isEmpty: Bool { slotOf.isEmpty }
    @inlinable package var keys: Dictionary<Key, Int>.Keys { slotOf.keys }
    @inlinable package var values: some Sequence<Value> { slots.lazy.compactMap { $0 } }

    @inlinable package subscript(key: Key) -> Value? {
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

    @inlinable package subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        _modify {
            let slot = slotOf[key] ?? insert(defaultValue(), for: key)
            yield &slots[slot]!
        }
    }

    @inlinable @discardableResult
    package mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = slotOf[key] else { return nil }
        let value = slots[slot]
        release(slot, of: key)
        return value
    }

    @inlinable package func mapValues<T>(_ transform: (Value) throws -> T) rethrows -> [Key: T] {
        var mapped: [Key: T] = [:]
        for (key, value) in self { mapped[key] = try transform(value) }
        return mapped
    }

    @inlinable package func makeIterator() -> AnyIterator<(key: Key, value: Value)> {
        var position = 0
        return AnyIterator {
            while position < slots.count {
                defer { position += 1 }
                if let key = keyOf[position], let value = slots[position] { return (key, value) }
            }
            return nil
        }
    }

    @usableFromInline mutating func insert(_ value: Value, for key: Key) -> Int {
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

    @usableFromInline mutating func release(_ slot: Int, of key: Key) {
        slots[slot] = nil
        keyOf[slot] = nil
        slotOf.removeValue(forKey: key)
        freeSlots.append(slot)
    }
}
