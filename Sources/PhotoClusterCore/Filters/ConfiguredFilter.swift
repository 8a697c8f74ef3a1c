/// A filter with every parameter resolved: what a graph's filter stage runs.
public struct ConfiguredFilter: Sendable {
    public let stage: any FilterStage
    public let parameters: FilterParameters

    public init(stage: any FilterStage, parameters: FilterParameters) {
        self.stage = stage
        self.parameters = parameters
    }

    public var name: String { stage.descriptor.name }

    /// A stable identifier of this configured filter, for cache and coalescing keys:
    /// name, version and every parameter sorted by key, e.g. `sepia@1(intensity=0.8)`.
    public var identifier: String {
        let descriptor = stage.descriptor
        let values = parameters.values.keys.sorted().map { "\($0)=\(Self.format(parameters.values[$0]!))" }
        return "\(descriptor.name)@\(descriptor.version)(\(values.joined(separator: ",")))"
    }

    /// The canonical spec text, which resolves to the same configuration.
    public var spec: FilterSpec {
        FilterSpec(name: name, parameters: parameters.values.keys.sorted().map { ($0, Self.format(parameters.values[$0]!)) })
    }

    /// A number as a user writes it: integers without a fraction.
    public static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
