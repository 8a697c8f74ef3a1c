import Foundation
import PhotoClusterCore

/// `FUZZ_VERBOSE=1 .build/release/<target> FILE…` says what each input decoded to (for seeds).
private let verbose = getenv("FUZZ_VERBOSE") != nil

private let parser = ManifestParser()

/// A manifest in any of its formats (property list, JSON, plain text); the format is sniffed
/// from the content, so one target reaches all three. Errors are expected; crashes are not.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        let manifest = try parser.parse(data, file: "fuzz-input")
        if verbose { print("FuzzManifest: \(manifest.format), \(manifest.entries.count) entries") }
    } catch {
        if verbose { print("FuzzManifest: \(error)") }
    }
    return 0
}
