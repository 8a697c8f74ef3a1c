import PhotoClusterProto

/// The protocol versions a coordinator accepts from workers and clients: its own and the one
/// before, so a cluster upgrades one node at a time with jobs running (workers first, then the
/// coordinator, or the other way round). proto/cluster.proto's `ProtocolVersion` says what each
/// version added.
package enum ProtocolVersions {
    /// What this build speaks.
    package static let current = UInt32(Photocluster_V1_ProtocolVersion.current.rawValue)
    /// The oldest version a coordinator of this build accepts.
    package static let oldestAccepted = current - 1
    /// What a client that says no version speaks: clients of version 1 sent none.
    package static let unsaidByClients: UInt32 = 1

    /// Nil when `version` is accepted; otherwise why not, naming both versions and which side to
    /// upgrade, for the logs at both ends. `peer`: "worker w1", "client".
    package static func refusal(of version: UInt32, peer: String) -> String? {
        let accepted = "this coordinator speaks protocol \(current) and accepts \(oldestAccepted)–\(current)"
        if version < oldestAccepted {
            let said = version == 0 ? "speaks protocol 0 (it says none)" : "speaks protocol \(version)"
            return "\(peer) \(said); \(accepted): upgrade the \(peer.split(separator: " ").first ?? "peer") to a release of protocol \(oldestAccepted) or later"
        }
        if version > current {
            return "\(peer) speaks protocol \(version); \(accepted): upgrade the coordinator to a release of protocol \(version - 1) or later first"
        }
        return nil
    }
}
