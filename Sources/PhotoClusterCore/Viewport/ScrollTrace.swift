import Foundation

/// A recorded scroll: one event per line, `time_ms visible_start visible_end scrolling(0|1)`;
/// blank lines and # comments are ignored. Times never go backwards.
public enum ScrollTrace {
    public struct Event: Equatable, Sendable {
        public let timeMs: Int
        public let visible: ClosedRange<Int>
        public let scrolling: Bool
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let file: String
        public let line: Int
        public let reason: String
        public var description: String { "\(file): line \(line): \(reason)" }
    }

    public static func parse(contentsOf url: URL) throws -> [Event] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw ParseError(file: url.path, line: 0, reason: "cannot read the file")
        }
        var events: [Event] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Int($0) }
            guard fields.count == 4, fields[0] >= 0, fields[1] >= 0, fields[1] <= fields[2], fields[3] == 0 || fields[3] == 1 else {
                throw ParseError(file: url.path, line: offset + 1, reason: "expected `time_ms visible_start visible_end scrolling(0|1)`, got \"\(line)\"")
            }
            if let last = events.last, fields[0] < last.timeMs {
                throw ParseError(file: url.path, line: offset + 1, reason: "time goes backwards (\(fields[0]) after \(last.timeMs))")
            }
            events.append(Event(timeMs: fields[0], visible: fields[1]...fields[2], scrolling: fields[3] == 1))
        }
        return events
    }
}
