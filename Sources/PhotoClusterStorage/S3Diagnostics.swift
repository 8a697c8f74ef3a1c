import Foundation
import PhotoClusterCore

/// Where the full text of S3 failures goes: the log of the process that made the request.
///
/// A failure's `message` may quote S3 and name the access key id, which are the operator's to
/// read, not a client's; clients are told `S3Failure.clientMessage`. A worker or coordinator
/// sets `sink` to its logger when it starts; until then the text goes to standard error.
public enum S3Diagnostics {
    private static let sink = LockedBox<(@Sendable (String) -> Void)?>(nil)

    /// Sends every S3 failure's full text to `log` from now on.
    public static func setSink(_ log: @escaping @Sendable (String) -> Void) {
        sink.withLock { $0 = log }
    }

    static func report(_ message: String) {
        if let log = sink.current {
            log(message)
        } else {
            FileHandle.standardError.write(Data("S3: \(message)\n".utf8))
        }
    }
}
