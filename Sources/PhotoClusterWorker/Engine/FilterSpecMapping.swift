import PhotoClusterCore
import PhotoClusterProto

/// Filter specs between the protocol and the filter registry: clients put them in jobs, a
/// worker resolves the ones its graphs carry.
extension Photocluster_V1_FilterSpec {
    /// The spec as the protocol carries it, parameters in the spec's order.
    public init(_ spec: FilterSpec) {
        self.init()
        name = spec.name
        params = spec.parameters.map { key, value in Photocluster_V1_FilterParam.with { $0.key = key; $0.value = value } }
    }

    public var filterSpec: FilterSpec {
        FilterSpec(name: name, parameters: params.map { ($0.key, $0.value) })
    }
}
