import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What is a photo's own in its graph; the rest is its job's and its filter chain's.
package struct AssignedGraph: Equatable {
    package let index: UInt32
    package let band: Photocluster_V1_PriorityBand
    package let rank: Int64
    package let epoch: UInt64
    package let attempt: UInt32
}

/// Graphs encoded without a `PhotoGraph` in between: the fields a job's graphs share are encoded
/// once per filter chain (with SwiftProtobuf), and each graph adds its own (index, name and URL
/// straight from the arena, band, rank, epoch, attempt). A message's fields may come in any
/// order, so the two together decode as the graph `graph(of:)` makes. Building and encoding a
/// `PhotoGraph` per photo was the largest single cost of dispatch.
extension Job {
    /// Distinct chains whose shared fields are kept; a job with more encodes the others each time.
    package static let templatesKept = 256

    /// `PhotoGraph.output_stems`.
    package static let outputStemsField = 201

    /// Gives photo `index` to `worker` (see `take`) and appends its graph to `batch` as one
    /// `AssignGraphs.graphs` entry. Answers what it took.
    package func assign(_ index: UInt32, to worker: WorkerNumber, encodingInto batch: inout [UInt8]) -> AssignedGraph {
        let taken = take(index, for: worker)
        let chain = photos[Int(index)].chain
        if graphTemplates[chain] == nil && graphTemplates.count < Self.templatesKept {
            graphTemplates[chain] = sharedFields(chain: chain)
        }
        encodeGraph(taken, shared: graphTemplates[chain] ?? sharedFields(chain: chain), into: &batch)
        return taken
    }

    /// The fields every graph of `chain` has alike.
    private func sharedFields(chain: UInt32) -> [UInt8] {
        var shared = Photocluster_V1_PhotoGraph()
        shared.jobID = id
        shared.filters = chains[Int(chain)]
        shared.format = format
        shared.quality = quality
        shared.fastDct = fastDCT
        shared.image = image
        if let place { shared.outputPlace = place.proto }
        return (try? shared.serializedBytes()) ?? []
    }

    private func encodeGraph(_ taken: AssignedGraph, shared: [UInt8], into batch: inout [UInt8]) {
        let (index, band, rank, epoch, attempt) = (UInt64(taken.index), UInt64(taken.band.rawValue), UInt64(bitPattern: taken.rank), taken.epoch, UInt64(taken.attempt))
        strings.withBytes(nameNumber(of: taken.index)) { name in
            strings.withBytes(urlNumber(of: taken.index)) { url in
                let size = shared.count + ProtobufWire.bytesFieldSize(3, count: name.count) + ProtobufWire.bytesFieldSize(4, count: url.count)
                    + ProtobufWire.varintFieldSize(2, index) + ProtobufWire.varintFieldSize(8, band) + ProtobufWire.varintFieldSize(9, rank)
                    + ProtobufWire.varintFieldSize(10, epoch) + ProtobufWire.varintFieldSize(11, attempt)
                    + (place != nil ? outputStemsSize(of: taken.index) : 0)
                ProtobufWire.appendTag(field: GraphBatch.graphsField, wireType: ProtobufWire.lengthDelimited, to: &batch)
                ProtobufWire.appendVarint(UInt64(size), to: &batch)
                batch.append(contentsOf: shared)
                ProtobufWire.appendVarintField(2, index, to: &batch)
                ProtobufWire.appendBytesField(3, name, to: &batch)
                ProtobufWire.appendBytesField(4, url, to: &batch)
                ProtobufWire.appendVarintField(8, band, to: &batch)
                ProtobufWire.appendVarintField(9, rank, to: &batch)
                ProtobufWire.appendVarintField(10, epoch, to: &batch)
                ProtobufWire.appendVarintField(11, attempt, to: &batch)
                if place != nil { appendOutputStems(of: taken.index, to: &batch) }
            }
        }
    }

    /// `output_stems`: the photo's stem, then its followers' (see `stem(of:)`).
    private func outputStemsSize(of index: UInt32) -> Int {
        var size = stemSize(of: index)
        for follower in followers(of: index) { size += stemSize(of: follower) }
        return size
    }

    private func stemSize(of index: UInt32) -> Int {
        // An empty stem is written as an empty string: a repeated field keeps every entry.
        let count = strings.byteCount(stemNumber(of: index))
        return ProtobufWire.varintSize(UInt64(Self.outputStemsField) << 3) + ProtobufWire.varintSize(UInt64(count)) + count
    }

    private func appendOutputStems(of index: UInt32, to batch: inout [UInt8]) {
        appendStem(of: index, to: &batch)
        for follower in followers(of: index) { appendStem(of: follower, to: &batch) }
    }

    private func appendStem(of index: UInt32, to batch: inout [UInt8]) {
        strings.withBytes(stemNumber(of: index)) { stem in
            ProtobufWire.appendTag(field: Self.outputStemsField, wireType: ProtobufWire.lengthDelimited, to: &batch)
            ProtobufWire.appendVarint(UInt64(stem.count), to: &batch)
            batch.append(contentsOf: stem)
        }
    }
}
