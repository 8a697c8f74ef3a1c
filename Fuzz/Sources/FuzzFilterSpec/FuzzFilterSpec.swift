import Foundation
import PhotoClusterCore

/// `FUZZ_VERBOSE=1 .build/release/<target> FILE…` says what each input decoded to (for seeds).
private let verbose = getenv("FUZZ_VERBOSE") != nil

private let registry = FilterRegistry.builtIn

/// A filter spec as a user types it (`name` or `name:key=value,…`), resolved against the
/// built-in filters. Invalid UTF-8 is repaired the way the CLI and the protobuf strings see it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    do {
        let filter = try registry.resolve(text)
        if verbose { print("FuzzFilterSpec: \(filter)") }
    } catch {
        if verbose { print("FuzzFilterSpec: \(error)") }
    }
    return 0
}
