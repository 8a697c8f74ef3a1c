import PhotoClusterCore
import PhotoClusterProto

/// An output place as the messages carry it.
extension OutputPlace {
    /// The place a message names, checked again (a peer's message is not trusted); nil when unset.
    public init?(_ proto: Photocluster_V1_OutputPlace) throws {
        switch proto.place {
        case .s3Prefix(let prefix): self = try .s3(parsing: prefix)
        case .sharedDirectory(let directory): self = try .shared(parsing: directory)
        case .none: return nil
        }
    }

    public var proto: Photocluster_V1_OutputPlace {
        var place = Photocluster_V1_OutputPlace()
        switch self {
        case .s3: place.s3Prefix = description
        case .shared(let directory): place.sharedDirectory = directory
        }
        return place
    }
}
