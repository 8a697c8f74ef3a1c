import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Who a new job is, as the claim on its output directory sees it.
struct OutputClaim: Sendable {
    let jobID: String
    /// The submitting key; nil without CURVE.
    let key: String?
    /// The key's label and roles ("alice", "client"), recorded for messages.
    let label: String?
    let role: String?
    /// An admin key may write into any client's directory.
    let isAdmin: Bool
    /// The client asked to replace another job's finished outputs (`--replace-outputs`).
    let replace: Bool
    /// CURVE is on: directories belong to keys.
    let secured: Bool
    /// Jobs not finished yet: a directory one of them writes into is taken only when replacing.
    let openJobs: Set<String>
}

/// What `.photocluster-owner.json` in an output directory says: the key whose job made the
/// directory (nil: made without CURVE), and the last job that wrote into it.
struct OwnerRecord: Codable, Equatable {
    var key: String?
    var label: String?
    var role: String?
    var job: String
    var created: String
}

/// A directory the job may not write into, and why.
struct OutputOwnershipProblem: Error, CustomStringConvertible {
    let message: String
    let refusal: Photocluster_V1_Refusal
    var description: String { message }
}

/// An output directory belongs to the client key whose job made it.
///
/// The first job that writes into a directory records its key (with its label and role) and its
/// own id in `.photocluster-owner.json`, written durably (temporary file and rename) before the
/// job is accepted. A later job is refused, before anything is written, when
///
/// - with CURVE, the directory belongs to another key and the new job's key is not an admin's;
/// - the directory holds another job's outputs (its record names another job, or, made before
///   owner records, it holds an `index.json`) and the client did not ask to replace them;
/// - a job that has not finished still writes into it, and the client did not ask to replace.
///
/// A job taken records itself as the directory's last job; an admin's job leaves the owner as
/// it was. Without CURVE nobody owns a directory, and only the last two rules apply.
enum OutputOwnership {
    static let fileName = ".photocluster-owner.json"

    /// Checks `claim` against the record in `directory` and, when it passes, writes the new
    /// record. Blocks on the disk: writer threads only.
    static func claim(_ directory: JobDirectory, _ claim: OutputClaim, attempt: Int = 1) throws {
        let record = directory.read(named: fileName).flatMap { try? JSONDecoder().decode(OwnerRecord.self, from: $0) }
        let unreadable = record == nil && directory.read(named: fileName) != nil
        let path = directory.path.path
        if claim.secured, !claim.isAdmin {
            if unreadable {
                throw OutputOwnershipProblem(
                    message: "the output directory \(path) has an owner record that cannot be read (\(fileName)), so who owns it is unknown; "
                        + "choose another --out directory, or ask an admin key to write into it",
                    refusal: .outputNotOwned)
            }
            if let owner = record?.key, owner != claim.key {
                throw OutputOwnershipProblem(
                    message: "the output directory \(path) belongs to \(ownerName(record!)) (its job \(record!.job) made it): another client key may "
                        + "not write into it; choose another --out directory, or ask that key's owner or an admin key to submit the job",
                    refusal: .outputNotOwned)
            }
        }
        if let record, record.job != claim.jobID, claim.openJobs.contains(record.job), !claim.replace {
            throw OutputOwnershipProblem(
                message: "the output directory \(path) is in use by job \(record.job), which has not finished; choose another --out directory, "
                    + "cancel that job first (`cluster cancel \(record.job)`), or submit again with --replace-outputs to write into it anyway",
                refusal: .outputOccupied)
        }
        let previousJob = record?.job ?? (directory.read(named: "index.json") != nil ? "made before owner records" : nil)
        if let previousJob, previousJob != claim.jobID, !claim.replace {
            let which = record == nil ? "a job's finished outputs (\(previousJob))" : "the finished outputs of job \(previousJob)"
            throw OutputOwnershipProblem(
                message: "the output directory \(path) holds \(which), with its index.json; submit again with --replace-outputs to replace "
                    + "them, or choose another --out directory",
                refusal: .outputOccupied)
        }
        // An admin writing into a client's directory leaves it that client's.
        let keepsOwner = claim.secured && record?.key != nil && record?.key != claim.key
        let updated = OwnerRecord(
            key: keepsOwner ? record?.key : claim.key,
            label: keepsOwner ? record?.label : claim.label,
            role: keepsOwner ? record?.role : claim.role,
            job: claim.jobID,
            created: keepsOwner || (record != nil && record?.key == claim.key) ? record!.created : ISO8601DateFormatter().string(from: Date()))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            let data = try encoder.encode(updated)
            guard record == nil && !unreadable else {
                // The directory's owner stays who it was: the record is replaced as a whole.
                return try directory.write(data, named: fileName, tag: claim.jobID)
            }
            // The first claim: of two jobs racing for a new directory, exactly one makes the
            // record (a link cannot replace a name), and the other is checked against it.
            let mine = "\(fileName).\(claim.jobID)"
            try directory.write(data, named: mine, tag: claim.jobID)
            defer { directory.remove(named: mine) }
            if try directory.linkExclusively(mine, as: fileName) { return }
        } catch {
            throw OutputOwnershipProblem(message: "cannot record the owner of the output directory \(path): \(error)", refusal: .unspecified)
        }
        guard attempt < 3 else {
            throw OutputOwnershipProblem(message: "cannot record the owner of the output directory \(path): another job keeps claiming it", refusal: .outputOccupied)
        }
        try Self.claim(directory, claim, attempt: attempt + 1)
    }

    /// "the client key alice": the owner's role and label (never the key itself).
    static func ownerName(_ record: OwnerRecord) -> String {
        "the \(record.role ?? "client") key \(record.label ?? "without a label")"
    }
}
