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
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
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

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the body" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }
}
