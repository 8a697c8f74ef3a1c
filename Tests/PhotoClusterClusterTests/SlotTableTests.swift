import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// The coordinator's jobs and workers live in a `SlotTable`: it must read and write like the
/// dictionary it replaced, whatever order values come and go in.
final class SlotTableTests: XCTestCase {
    func testChangesInPlaceRemovalsAndReusedSlotsActLikeADictionary() {
        var table = SlotTable<String, [Int]>()
        var reference: [String: [Int]] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<5_000 {
            let key = "k\(Int.random(in: 0..<40, using: &generator))"
            switch Int.random(in: 0..<5, using: &generator) {
            case 0:
                table[key] = [step]
                reference[key] = [step]
            case 1:
                table[key]?.append(step)
                reference[key]?.append(step)
            case 2:
                XCTAssertEqual(table.removeValue(forKey: key), reference.removeValue(forKey: key))
            case 3:
                table[key] = nil
                reference[key] = nil
            default:
                table[key, default: []].append(-step)
                reference[key, default: []].append(-step)
            }
            XCTAssertEqual(table[key], reference[key], "after step \(step)")
        }
        XCTAssertEqual(table.count, reference.count)
        XCTAssertEqual(Set(table.keys), Set(reference.keys))
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: table.map { ($0.key, $0.value) }), reference, "iteration gives every value once")
        XCTAssertEqual(table.mapValues(\.count), reference.mapValues(\.count))
        XCTAssertEqual(table.values.map(\.count).sorted(), reference.values.map(\.count).sorted())
    }
}
