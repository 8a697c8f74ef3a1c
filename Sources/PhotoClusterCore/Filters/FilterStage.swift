/// A pixel filter that a worker can run as a stage of a photo's graph.
///
/// Filters are stateless: everything a run needs arrives in `parameters`, so one instance
/// serves every photo on every thread.
public protocol FilterStage: Sendable {
    var descriptor: FilterDescriptor { get }

    /// Filters `image`, in place or into a new image, and returns the result. Long filters call
    /// `isCancelled` between bands of rows and throw `FilterCancelled` when it returns true.
    func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage

    /// Filters a copy of `image`, leaving `image` untouched (for images that are shared, such as
    /// cached ones). Has a default (copy, then `apply(to:)`); point filters fuse the copy into
    /// their pass. See FilterCopying.swift.
    func apply(toCopyOf image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage

    /// The output's size and what the filter allocates for an input of `input`, before it runs
    /// (the worker's memory budget adds it up). Has a default: a new image of the input's size.
    /// See FilterMemory.swift.
    func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory
}

/// What a filter is called and what it accepts.
public struct FilterDescriptor: Sendable, Equatable {
    public var name: String
    public var version: String
    public var summary: String
    public var parameters: [FilterParameter]
    /// "built-in", or the file a plugin was loaded from.
    public var origin: String

    public init(name: String, version: String, summary: String, parameters: [FilterParameter], origin: String = "built-in") {
        self.name = name
        self.version = version
        self.summary = summary
        self.parameters = parameters
        self.origin = origin
    }
}

/// One numeric parameter with its range and default.
public struct FilterParameter: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case double, int, bool

        /// What a value of this kind is, in a user's words ("sigma=abc is not a number").
        public var words: String {
            switch self {
            case .double: "a number"
            case .int: "a whole number"
            case .bool: "true or false"
            }
        }
    }

    public var key: String
    public var kind: Kind
    public var range: ClosedRange<Double>
    public var defaultValue: Double
    public var summary: String
    /// Names an `.int` parameter's values may be written as, from the range's lower bound up
    /// (`kernel=lanczos3` for 3); a resolved spec carries the number.
    public var choices: [String]

    public init(key: String, kind: Kind = .double, range: ClosedRange<Double>, defaultValue: Double, summary: String, choices: [String] = []) {
        self.key = key
        self.kind = kind
        self.range = range
        self.defaultValue = defaultValue
        self.summary = summary
        self.choices = choices
    }

    /// The values it takes as they may be written: its names ("nearest, linear, cubic,
    /// lanczos3") when it has them, else its range ("0…2").
    public var acceptedValues: String {
        choices.isEmpty ? "\(ConfiguredFilter.format(range.lowerBound))…\(ConfiguredFilter.format(range.upperBound))" : choices.joined(separator: ", ")
    }

    /// The name of `value` when the parameter names its values (nil otherwise, or out of its names).
    public func choice(for value: Double) -> String? {
        let offset = value - range.lowerBound
        guard !choices.isEmpty, offset == offset.rounded(), offset >= 0, offset < Double(choices.count) else { return nil }
        return choices[Int(offset)]
    }
}

/// Resolved parameter values: every declared key present and within its range.
public struct FilterParameters: Sendable, Hashable {
    public private(set) var values: [String: Double]

    public init(_ values: [String: Double]) {
        self.values = values
    }

    public subscript(key: String) -> Double {
        guard let value = values[key] else { preconditionFailure("parameter \(key) was not resolved") }
        return value
    }
}

/// Thrown by a filter that saw its cancellation check return true.
public struct FilterCancelled: Error, Sendable {
    public init() {}
}

/// A filter that failed on one photo (a plugin's error, an impossible size).
public struct FilterFailure: Error, Sendable, CustomStringConvertible {
    public let filter: String
    public let reason: String

    public init(filter: String, reason: String) {
        self.filter = filter
        self.reason = reason
    }

    public var description: String { "\(filter): \(reason)" }
}
