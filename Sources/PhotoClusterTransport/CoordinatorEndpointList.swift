import Foundation

/// The coordinator endpoints a worker or client may talk to, as `--coordinator` gives them:
/// one endpoint (the common case), or several separated by commas — the leader and its standby
/// coordinators, of which only the leader binds its ports.
public enum CoordinatorEndpointList {
    /// Why a list of endpoints cannot be used, naming the item and the reason.
    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The endpoints of `list`, in its order, each trimmed of spaces.
    ///
    /// - Throws: ``Malformed`` for an empty list, an empty item (`a,,b`, a trailing comma) or an
    ///   endpoint named twice, saying which item and what to write instead.
    public static func parse(_ list: String) throws -> [String] {
        let items = list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let example = "such as tcp://coordinator-a:7000,tcp://coordinator-b:7000"
        guard items.contains(where: { !$0.isEmpty }) else {
            throw Malformed(description: "no coordinator endpoint in \"\(list)\": give one, or several separated by commas, \(example)")
        }
        for (position, item) in items.enumerated() {
            if item.isEmpty {
                throw Malformed(description: "item \(position + 1) of \"\(list)\" is empty: separate endpoints by single commas, with none at either end, \(example)")
            }
            if items[..<position].contains(item) {
                throw Malformed(description: "\(item) is named twice in \"\(list)\": give each coordinator once")
            }
        }
        return items
    }
}
