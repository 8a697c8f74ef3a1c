import PhotoClusterCore
import PhotoClusterProto

/// Filter descriptors as they travel in a worker's hello.
enum FilterInfoMapping {
    static func info(_ descriptor: FilterDescriptor) -> Photocluster_V1_FilterInfo {
        var info = Photocluster_V1_FilterInfo()
        info.name = descriptor.name
        info.version = descriptor.version
        info.origin = descriptor.origin
        info.params = descriptor.parameters.map { parameter in
            var p = Photocluster_V1_FilterParamInfo()
            p.key = parameter.key
            p.type = parameter.kind.rawValue
            p.min = parameter.range.lowerBound
            p.max = parameter.range.upperBound
            p.defaultValue = String(parameter.defaultValue)
            p.choices = parameter.choices
            return p
        }
        return info
    }
}
