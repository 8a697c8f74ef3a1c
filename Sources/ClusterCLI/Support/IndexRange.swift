import ArgumentParser

/// `A..B`: an inclusive range of manifest indices, as given to `--visible`.
struct IndexRange: ExpressibleByArgument, CustomStringConvertible {
    let range: ClosedRange<Int>

    init?(argument: String) {
        let parts = argument.components(separatedBy: "..")
        guard parts.count == 2, let low = Int(parts[0]), let high = Int(parts[1]), low >= 0, low <= high else { return nil }
        range = low...high
    }

    var description: String { "\(range.lowerBound)..\(range.upperBound)" }
    static var defaultValueDescription: String { "A..B" }
}
