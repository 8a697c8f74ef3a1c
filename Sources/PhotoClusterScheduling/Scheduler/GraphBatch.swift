import Foundation

/// The graphs assigned to one worker during a turn of the shell's loop, already encoded (see
/// `Job.assign(_:to:encodingInto:)`), and the attempt and epoch of each photo, for the
/// bookkeeping done once they leave (`CoordinatorCore.graphsToSend`).
package struct GraphBatch {
    /// `AssignGraphs.graphs` entries.
    package internal(set) var encoded: [UInt8] = []
    package internal(set) var sent: [(ref: PhotoRef, attempt: UInt32, epoch: UInt64)] = []

    /// `AssignGraphs.graphs` (each entry of `encoded` is this field) and `AssignGraphs.sequence`,
    /// and `CoordinatorToWorker.assign_batch`, which carries them.
    package static let graphsField = 180
    package static let sequenceField = 181
    package static let assignBatchField = 180

    /// The `CoordinatorToWorker` message that carries the graphs as `AssignGraphs`, numbered
    /// `sequence`.
    package func message(sequence: UInt64) -> Data {
        var batch = encoded
        ProtobufWire.appendVarintField(Self.sequenceField, sequence, to: &batch)
        var message: [UInt8] = []
        message.reserveCapacity(batch.count + 8)
        ProtobufWire.appendBytesField(Self.assignBatchField, batch, to: &message)
        return Data(message)
    }
}
