import PhotoClusterCore
import PhotoClusterProto

/// Filter descriptors as a plugin host reports them to its worker.
enum HostedFilterMapping {
    static func message(_ descriptor: FilterDescriptor) -> Photocluster_V1_HostedFilter {
        .with { filter in
            filter.name = descriptor.name
            filter.version = descriptor.version
            filter.summary = descriptor.summary
            filter.origin = descriptor.origin
            filter.parameters = descriptor.parameters.map { parameter in
                .with {
                    $0.key = parameter.key
                    $0.kind = parameter.kind.rawValue
                    $0.min = parameter.range.lowerBound
                    $0.max = parameter.range.upperBound
                    $0.defaultValue = parameter.defaultValue
                    $0.summary = parameter.summary
                }
            }
        }
    }

    /// Nil for a description no plugin table could have produced (the host checked the table).
    static func descriptor(_ message: Photocluster_V1_HostedFilter) -> FilterDescriptor? {
        var parameters: [FilterParameter] = []
        for parameter in message.parameters {
            guard let kind = FilterParameter.Kind(rawValue: parameter.kind), parameter.min <= parameter.max else { return nil }
            parameters.append(
                FilterParameter(
                    key: parameter.key, kind: kind, range: parameter.min...parameter.max, defaultValue: parameter.defaultValue,
                    summary: parameter.summary))
        }
        guard !message.name.isEmpty else { return nil }
        return FilterDescriptor(
            name: message.name, version: message.version, summary: message.summary, parameters: parameters, origin: message.origin)
    }
}
