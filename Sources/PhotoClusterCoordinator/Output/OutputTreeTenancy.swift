import Foundation

/// Tenancy of trees: with CURVE, a client key's output directory may lie neither inside another
/// key's directory nor above one.
///
/// `OutputOwnership` guards the exact directory a job names. Without this check, bob's
/// `--out albums/alice/sub` would put his files and his owner record inside alice's directory,
/// and `--out albums`, the parent of hers, would make bob the owner of the tree her later jobs
/// write into. Checked before anything is made, reading only: a refused job changes nothing.
/// Admin keys may write anywhere, and directories without an owner record (made without CURVE)
/// belong to nobody.
///
/// The directories below the requested one are walked to find owner records, so asking for a
/// directory high in a large tree costs a walk of that tree (files are listed, not read). Two
/// jobs of different keys claiming a parent and a child at the same moment are not ordered.
enum OutputTreeTenancy {
    /// Throws `OutputOwnershipProblem` (`.outputNotOwned`) naming the other key's directory.
    /// Blocks on the disk: writer threads only.
    static func check(_ requested: String, under root: OutputRoot, _ claim: OutputClaim) throws {
        guard claim.secured, !claim.isAdmin else { return }
        let components = try root.confinedComponents(of: requested)
        var directory = root.path
        for (depth, component) in components.enumerated() {
            directory = directory.appendingPathComponent(component, isDirectory: true)
            guard exists(directory) else { return }   // nothing inside it either
            // The requested directory itself is `OutputOwnership`'s to judge.
            if depth < components.count - 1, let record = foreignRecord(in: directory, for: claim) {
                throw OutputOwnershipProblem(
                    message: "the output directory \(requested) lies inside \(directory.path), which belongs to \(OutputOwnership.ownerName(record)) "
                        + "(its job \(record.job) made it): a client key may not make a directory inside another key's; choose another --out directory",
                    refusal: .outputNotOwned)
            }
        }
        guard let (owned, record) = foreignDescendant(of: directory, for: claim) else { return }
        throw OutputOwnershipProblem(
            message: "the output directory \(requested) holds \(owned.path), which belongs to \(OutputOwnership.ownerName(record)) "
                + "(its job \(record.job) made it): a client key may not own a directory above another key's; choose another --out directory",
            refusal: .outputNotOwned)
    }

    private static func exists(_ directory: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The owner record of `directory` when it names a key other than the claim's.
    private static func foreignRecord(in directory: URL, for claim: OutputClaim) -> OwnerRecord? {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(OutputOwnership.fileName).path),
            let record = try? JSONDecoder().decode(OwnerRecord.self, from: data), let owner = record.key, owner != claim.key
        else { return nil }
        return record
    }

    /// The first directory strictly below `top` whose owner record names another key.
    private static func foreignDescendant(of top: URL, for claim: OutputClaim) -> (URL, OwnerRecord)? {
        guard let walk = FileManager.default.enumerator(at: top, includingPropertiesForKeys: nil, options: [], errorHandler: { _, _ in true }) else {
            return nil
        }
        for case let file as URL in walk where file.lastPathComponent == OutputOwnership.fileName {
            let directory = file.deletingLastPathComponent()
            guard directory.standardizedFileURL.path != top.standardizedFileURL.path else { continue }
            if let record = foreignRecord(in: directory, for: claim) { return (directory, record) }
        }
        return nil
    }
}
