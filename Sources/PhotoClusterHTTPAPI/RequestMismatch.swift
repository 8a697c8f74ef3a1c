import Foundation
import OpenAPIRuntime

/// Why a request does not match the API, in a line for its 400 problem: where the body went
/// wrong, and for a field of named choices, which ones it takes.
enum RequestMismatch {
    /// What was wrong with the request, in a line.
    static func reason(_ error: ServerError) -> String {
        if let decoding = error.underlyingError as? DecodingError { return reason(decoding) }
        return "\(error.causeDescription): \(error.underlyingError)"
    }

    /// Where the body went wrong and how: a missing field, a value of the wrong type, a choice
    /// that is not one.
    static func reason(_ decoding: DecodingError) -> String {
        switch decoding {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is missing"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(notAChoice(context) ?? context.debugDescription)"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): \(wrongType(type, context) ?? context.debugDescription)"
        @unknown default: return "\(decoding)"
        }
    }

    /// The values each named-choice field of a submission takes, so a problem can list them
    /// (the decoder's own words name a generated type: "Cannot initialize FormatPayload…").
    static let choices: [String: [String]] = {
        typealias Submit = Components.Schemas.SubmitRequest
        return [
            "format": Submit.FormatPayload.allCases.map(\.rawValue), "chroma": Submit.ChromaPayload.allCases.map(\.rawValue),
            "colour": Submit.ColourPayload.allCases.map(\.rawValue), "metadata": Submit.MetadataPayload.allCases.map(\.rawValue),
        ]
    }()

    /// "heic is not one of jpeg, png, webp, avif": the value, when the decoder's description
    /// ends with it, and the field's choices; nil for a field that has none.
    private static func notAChoice(_ context: DecodingError.Context) -> String? {
        guard let field = context.codingPath.last?.stringValue, let values = choices[field] else { return nil }
        let listed = values.joined(separator: ", ")
        guard let marker = context.debugDescription.range(of: "invalid String value ") else { return "not one of \(listed)" }
        return "\(context.debugDescription[marker.upperBound...]) is not one of \(listed)"
    }

    /// "expected a whole number, found a string": what the field takes in JSON's words, not the
    /// decoder's Swift type names; nil for a type with no such word.
    private static func wrongType(_ type: Any.Type, _ context: DecodingError.Context) -> String? {
        let expected: String
        switch type {
        case is any BinaryInteger.Type: expected = "a whole number"
        case is any BinaryFloatingPoint.Type: expected = "a number"
        case is String.Type: expected = "a string"
        case is Bool.Type: expected = "true or false"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array<") { expected = "a list" } else if name.hasPrefix("Dictionary<") { expected = "an object" } else { return nil }
        }
        let words = context.debugDescription
        guard let found = words.range(of: "found "), let end = words.range(of: " instead", range: found.upperBound..<words.endIndex) else {
            return "expected \(expected)"
        }
        // The decoder says "a string" and "number", "null value" and "a dictionary".
        var what = words[found.upperBound..<end.lowerBound]
        for noise in ["a ", "an "] where what.hasPrefix(noise) { what = what.dropFirst(noise.count) }
        if what.hasSuffix(" value") { what = what.dropLast(" value".count) }
        return "expected \(expected), found \(jsonWords[String(what)] ?? String(what))"
    }

    /// The decoder's names for what it found, in JSON's words.
    private static let jsonWords = [
        "string": "a string", "number": "a number", "bool": "true or false", "dictionary": "an object", "array": "a list", "null": "null",
    ]

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the body" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }
}
