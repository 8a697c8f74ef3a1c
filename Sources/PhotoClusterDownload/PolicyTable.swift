import CCurlShim
import Foundation

/// Owner of the C `pc_policy` that the transfer callbacks consult.
///
/// `@unchecked Sendable` invariant: the C policy is only written during init; afterwards it is
/// read-only, so any thread may read it. Transfers hold this object while curl may call back.
final class PolicyTable: @unchecked Sendable {
    let raw: OpaquePointer

    init(allow: [String], deny: [(entry: String, note: String?)]) throws {
        guard let raw = pc_policy_new() else { fatalError("out of memory for the download policy") }
        self.raw = raw
        for entry in allow { try add(entry, deny: false, note: nil) }
        for (entry, note) in deny { try add(entry, deny: true, note: note) }
    }

    deinit { pc_policy_free(raw) }

    /// Refuses the addresses of these classes; part of init, before the table is shared.
    func refuse(_ reach: Set<AddressReach>) {
        pc_policy_refuse_reach(raw, reach.reduce(0 as UInt32) { $0 | (1 << UInt32($1.rawValue)) })
    }

    func refusal(host: String, address: String?) -> String? {
        var why = [CChar](repeating: 0, count: 512)
        let allowed: Int32
        if let address {
            allowed = pc_policy_allows(raw, host, address, &why, why.count)
        } else {
            allowed = pc_policy_allows(raw, host, nil, &why, why.count)
        }
        return allowed == 1 ? nil : String(cString: why)
    }

    private func add(_ entry: String, deny: Bool, note: String?) throws {
        var err = [CChar](repeating: 0, count: 256)
        let trimmed = entry.trimmingCharacters(in: .whitespacesAndNewlines)
        if pc_policy_add(raw, deny ? 1 : 0, trimmed, note, &err, err.count) != 0 {
            throw DownloadPolicyError(entry: entry, reason: String(cString: err))
        }
    }
}
