import Foundation
import PhotoClusterProto
import SwiftProtobuf

/// `FUZZ_VERBOSE=1 .build/release/<target> FILE…` says what each input decoded to (for seeds).
private let verbose = getenv("FUZZ_VERBOSE") != nil

/// One ZeroMQ frame, decoded as each of the four envelopes. A frame that parses must serialise,
/// and the serialised form must parse back and serialise to the same bytes (the schema has no
/// maps, so binary serialisation is deterministic).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let frame = Data(bytes: start, count: count)
    roundTrip(Photocluster_V1_WorkerToCoordinator.self, frame)
    roundTrip(Photocluster_V1_CoordinatorToWorker.self, frame)
    roundTrip(Photocluster_V1_ClientToCoordinator.self, frame)
    roundTrip(Photocluster_V1_CoordinatorToClient.self, frame)
    return 0
}

private func roundTrip<M: SwiftProtobuf.Message>(_ type: M.Type, _ frame: Data) {
    guard let message = Envelope.decode(type, from: frame) else { return }
    if verbose { print("FuzzFrames: parses as \(M.protoMessageName)") }
    let first: Data
    do {
        first = try message.serializedData()
    } catch {
        fatalError("\(M.protoMessageName) parsed but does not serialise: \(error)")
    }
    guard let again = Envelope.decode(type, from: first) else {
        fatalError("\(M.protoMessageName) serialised to \(first.count) bytes that do not parse back")
    }
    let second = Envelope.encode(again)
    if second != first {
        fatalError("\(M.protoMessageName) round trip changed the bytes: \(first.count) -> \(second.count)")
    }
}
