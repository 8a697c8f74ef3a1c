import Foundation

/// `write(2)` until every byte is out, retrying interrupted calls; returns how many bytes were
/// written (fewer when a call failed: `errno` says why; a call that wrote nothing without an
/// error leaves `EIO`, so `errno` never carries a stale reason).
public func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    var done = 0
    while done < bytes.count {
        let result = write(descriptor, bytes.baseAddress! + done, bytes.count - done)
        if result < 0 && errno == EINTR { continue }
        if result == 0 { errno = EIO }
        if result <= 0 { break }
        done += result
    }
    return done
}
