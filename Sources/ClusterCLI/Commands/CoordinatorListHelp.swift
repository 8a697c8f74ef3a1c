import ArgumentParser
import PhotoClusterTransport

/// What `--coordinator` says about lists of endpoints, and how it checks them, for every
/// command that takes one.
enum CoordinatorListHelp {
    private static let list =
        " Several, separated by commas, for a leading coordinator and its standbys (which bind no port until they lead): "
        + "it talks to one at a time and moves to the next when that one refuses connections or falls silent. "
        + "In Kubernetes, one Service address whose readiness follows leadership serves as well."

    static let client = "The coordinator's client endpoint." + list
    static let worker = "The coordinator's worker endpoint." + list
    static let submit = "Client endpoint of a running coordinator, e.g. tcp://127.0.0.1:7001 (default: run an embedded cluster)." + list

    /// The endpoints of `--coordinator`, or a `ValidationError` naming the item at fault.
    static func endpoints(_ value: String) throws -> [String] {
        do {
            return try CoordinatorEndpointList.parse(value)
        } catch {
            throw ValidationError("--coordinator: \(error)")
        }
    }
}
