/// The filters a node can run, by name; resolves user specs into configured filters.
public struct FilterRegistry: Sendable {
    public private(set) var stages: [String: any FilterStage] = [:]

    public init(_ stages: [any FilterStage] = []) {
        for stage in stages { try? register(stage) }
    }

    /// The filters every node has.
    public static var builtIn: FilterRegistry {
        FilterRegistry([
            SepiaFilter(), GrayscaleFilter(), BrightnessFilter(), BlurFilter(), SharpenFilter(), VignetteFilter(),
            FogFilter(), PosterizeFilter(), ResizeFilter(), ThumbnailFilter(), CropFilter(), RotateFilter(), FlipFilter(),
        ])
    }

    public var names: [String] { stages.keys.sorted() }

    public var descriptors: [FilterDescriptor] { names.map { stages[$0]!.descriptor } }

    /// Adds a filter; a name that already exists is refused.
    public mutating func register(_ stage: any FilterStage) throws {
        let name = stage.descriptor.name
        if let existing = stages[name] {
            throw FilterSpecError(spec: name, reason: "a filter with this name is already registered (from \(existing.descriptor.origin))")
        }
        stages[name] = stage
    }

    public func resolve(_ text: String) throws -> ConfiguredFilter {
        try resolve(try FilterSpec(parsing: text))
    }

    /// Checks the name and every parameter; missing parameters take their defaults.
    public func resolve(_ spec: FilterSpec) throws -> ConfiguredFilter {
        guard let stage = stages[spec.name] else {
            throw FilterSpecError(spec: spec.description, reason: "unknown filter; available: \(names.joined(separator: ", "))")
        }
        let declared = stage.descriptor.parameters
        var values: [String: Double] = [:]
        for parameter in declared { values[parameter.key] = parameter.defaultValue }
        for (key, text) in spec.parameters {
            guard let parameter = declared.first(where: { $0.key == key }) else {
                let known = declared.isEmpty ? "it takes no parameters" : "parameters: " + declared.map(\.key).joined(separator: ", ")
                throw FilterSpecError(spec: spec.description, reason: "unknown parameter \"\(key)\"; \(known)")
            }
            values[key] = try Self.value(of: text, for: parameter, in: spec)
        }
        return ConfiguredFilter(stage: stage, parameters: FilterParameters(values))
    }

    private static func value(of text: String, for parameter: FilterParameter, in spec: FilterSpec) throws -> Double {
        let range = parameter.acceptedValues
        let parsed: Double?
        switch parameter.kind {
        case .double: parsed = Double(text).flatMap { $0.isFinite ? $0 : nil }
        case .int:
            parsed = Int(text).map(Double.init)
                ?? parameter.choices.firstIndex(of: text.lowercased()).map { parameter.range.lowerBound + Double($0) }
        case .bool: parsed = ["true": 1, "1": 1, "false": 0, "0": 0][text.lowercased()]
        }
        guard let value = parsed else {
            // A parameter of named choices is not offered as a number, so it is not refused as one;
            // a switch's range (0…1) says less than its words.
            let expected: String
            if !parameter.choices.isEmpty {
                expected = "one of \(range)"
            } else if parameter.kind == .bool {
                expected = "\(parameter.kind.words) (or 1, 0)"
            } else {
                expected = "\(parameter.kind.words) (range \(range))"
            }
            throw FilterSpecError(spec: spec.description, reason: "\(parameter.key)=\(text) is not \(expected)")
        }
        guard parameter.range.contains(value) else {
            throw FilterSpecError(spec: spec.description, reason: "\(parameter.key)=\(text) is out of range \(range)")
        }
        return value
    }
}
