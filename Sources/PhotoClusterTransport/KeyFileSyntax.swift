import Foundation

/// One meaningful line of a key file: `name = "value"` or a bare value, with an optional `# comment`.
struct KeyFileEntry {
    let line: Int
    let field: String?
    let value: String
    let comment: String?
}

/// The text format shared by `.key`, `.pub` and authorized-keys files.
///
/// Blank lines and lines starting with `#` are ignored. A value ends at its closing quote (or, bare,
/// at the first blank), so `#` and `=`, which are Z85 characters, never need escaping inside a key.
enum KeyFileSyntax {
    static func read(_ file: URL) throws -> String {
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw CurveKeyError(file: file, .missingFile)
        }
        do {
            return try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw CurveKeyError(file: file, .unreadable(error.localizedDescription))
        }
    }

    static func entries(in text: String, file: URL) throws -> [KeyFileEntry] {
        try meaningfulLines(in: text).map { try entry(onLine: $0.text, number: $0.number, file: file) }
    }

    /// The lines that are neither blank nor comments, trimmed, with their numbers (from 1).
    static func meaningfulLines(in text: String) -> [(number: Int, text: String)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, raw in
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            return line.isEmpty || line.hasPrefix("#") ? nil : (index + 1, line)
        }
    }

    /// One meaningful line as an entry; a malformed one is an error naming the file and line.
    static func entry(onLine line: String, number: Int, file: URL) throws -> KeyFileEntry {
        do {
            return try entry(line, number: number)
        } catch let error as LineError {
            throw CurveKeyError(file: file, line: number, error.problem)
        }
    }

    /// `# header` lines, then one `name = "value"` line per field.
    static func render(header: [String], fields: [(name: String, value: String)]) -> String {
        let comments = header.map { "# \($0)" }
        let lines = fields.map { "\($0.name) = \"\($0.value)\"" }
        return (comments + lines).joined(separator: "\n") + "\n"
    }

    private static func entry(_ line: String, number: Int) throws -> KeyFileEntry {
        let field: String?
        let value: String
        let tail: String
        if line.contains("\"") {
            guard let equals = line.firstIndex(of: "=") else { throw malformed }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            var rest = Substring(line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces))
            guard isFieldName(name), rest.first == "\"" else { throw malformed }
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: "\"") else { throw LineError(problem: .malformedLine("no closing quote")) }
            field = name
            value = String(rest[..<close])
            tail = rest[rest.index(after: close)...].trimmingCharacters(in: .whitespaces)
        } else {
            let parts = line.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
            field = nil
            value = String(parts[0])
            tail = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        }
        guard tail.isEmpty || tail.hasPrefix("#") else { throw malformed }
        let comment = tail.dropFirst().trimmingCharacters(in: .whitespaces)
        return KeyFileEntry(line: number, field: field, value: value, comment: comment.isEmpty ? nil : comment)
    }

    private struct LineError: Error {
        let problem: CurveKeyError.Problem
    }

    private static var malformed: LineError {
        LineError(problem: .malformedLine("expected `name = \"value\"` or a 40-character key, optionally followed by `# comment`"))
    }

    private static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0 == "-" || ($0.isASCII && $0.isLowercase) }
    }
}
