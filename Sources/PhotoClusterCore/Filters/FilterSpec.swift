/// A filter as a user writes it: `name` or `name:key=value,key=value`.
public struct FilterSpec: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    /// In the order written; `ConfiguredFilter` sorts them.
    public var parameters: [(key: String, value: String)]

    public init(name: String, parameters: [(key: String, value: String)] = []) {
        self.name = name
        self.parameters = parameters
    }

    /// Parses `name[:key=value,…]`.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0]).lowercased()
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw FilterSpecError(spec: text, reason: "expected NAME or NAME:key=value,… (e.g. sepia:intensity=0.8)")
        }
        var parameters: [(key: String, value: String)] = []
        if parts.count == 2 {
            for pair in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard kv.count == 2, !kv[0].trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw FilterSpecError(spec: text, reason: "\"\(pair)\" is not key=value")
                }
                parameters.append((String(kv[0]).trimmingCharacters(in: .whitespaces), String(kv[1]).trimmingCharacters(in: .whitespaces)))
            }
        }
        self.init(name: name, parameters: parameters)
    }

    public var description: String {
        parameters.isEmpty ? name : name + ":" + parameters.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }

    public static func == (lhs: FilterSpec, rhs: FilterSpec) -> Bool {
        lhs.description == rhs.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
    }
}

/// A filter spec that cannot be used, with what exists or the valid range.
public struct FilterSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    public let spec: String
    public let reason: String

    public init(spec: String, reason: String) {
        self.spec = spec
        self.reason = reason
    }

    public var description: String { "filter \"\(spec)\": \(reason)" }
}
