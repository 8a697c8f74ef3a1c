import Foundation

/// A property list read with `PropertyListDecoder` into plain values.
///
/// `PropertyListSerialization` crashes on a binary property list holding a set (and leaks on
/// every list it rejects), so manifests never go through it: the decoder refuses what a
/// manifest cannot contain with an ordinary error, and nesting is bounded.
enum PropertyListTree: Decodable {
    case string(String)
    case array([PropertyListTree])
    case dictionary([String: PropertyListTree])
    /// Numbers, dates, data, booleans: valid in a property list, never right in a manifest.
    case other

    /// Manifests nest three deep (array → entry → filters); a binary property list can refer to
    /// itself, so deeper means hostile and stops here rather than recursing forever.
    static let maxDepth = 8

    init(from decoder: Decoder) throws {
        guard decoder.codingPath.count <= Self.maxDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "nested more than \(Self.maxDepth) levels deep"))
        }
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var dictionary: [String: PropertyListTree] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(PropertyListTree.self, forKey: key) }
            self = .dictionary(dictionary)
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [PropertyListTree] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(PropertyListTree.self)) }
            self = .array(array)
        } else {
            let single = try decoder.singleValueContainer()
            self = (try? single.decode(String.self)).map(PropertyListTree.string) ?? .other
        }
    }

    /// The same shapes `JSONSerialization` returns, for the code both formats share.
    var foundationValue: Any {
        switch self {
        case .string(let text): return text
        case .array(let items): return items.map(\.foundationValue)
        case .dictionary(let entries): return entries.mapValues(\.foundationValue)
        case .other: return NSNull()
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
