import Foundation
import PhotoClusterProto

/// Preparation: every filter of a job must exist on some connected worker, with parameters in
/// that filter's ranges. With no worker connected yet, the check waits for dispatch.
extension CoordinatorNode {
    func filterProblem(in submit: Photocluster_V1_SubmitJob) -> String? {
        guard !workers.isEmpty else { return nil }
        var known: [String: Photocluster_V1_FilterInfo] = [:]
        for worker in workers.values { known.merge(worker.filters) { first, _ in first } }
        let chains = [submit.filters] + submit.photos.map(\.filters)
        for spec in Set(chains.flatMap { $0 }) {
            guard let info = known[spec.name] else {
                return "unknown filter \"\(spec.name)\"; connected workers have: \(known.keys.sorted().joined(separator: ", "))"
            }
            for param in spec.params {
                guard let schema = info.params.first(where: { $0.key == param.key }) else {
                    return "filter \(spec.name): unknown parameter \"\(param.key)\"; parameters: \(info.params.map(\.key).joined(separator: ", "))"
                }
                // A parameter that names its values (a resize's kernel) takes the names too.
                let named = schema.choices.firstIndex(of: param.value.lowercased()).map { schema.min + Double($0) }
                guard let value = named ?? Self.number(param.value, type: schema.type), value >= schema.min, value <= schema.max else {
                    let accepted = schema.choices.isEmpty ? "a \(schema.type) in \(schema.min)…\(schema.max)" : "one of \(schema.choices.joined(separator: ", "))"
                    return "filter \(spec.name): \(param.key)=\(param.value) is not \(accepted)"
                }
            }
        }
        return nil
    }

    private static func number(_ text: String, type: String) -> Double? {
        switch type {
        case "int": return Int(text).map(Double.init)
        case "bool": return ["true": 1, "1": 1, "false": 0, "0": 0][text.lowercased()]
        default: return Double(text).flatMap { $0.isFinite ? $0 : nil }
        }
    }
}
