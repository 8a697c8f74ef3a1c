import Foundation
import SwiftProtobuf

/// Every ZeroMQ message carries one envelope as a single protobuf frame (a worker's result is
/// followed by one more frame, the encoded photo). A frame that does not parse is refused here,
/// so callers can drop and count it rather than trust it.
public enum Envelope {
    public static func encode<M: SwiftProtobuf.Message>(_ message: M) -> Data {
        // Serialising a message built in memory cannot fail: every field is set by our code.
        (try? message.serializedData()) ?? Data()
    }

    public static func decode<M: SwiftProtobuf.Message>(_ type: M.Type, from data: Data) -> M? {
        try? M(serializedBytes: data)
    }
}
