import Foundation
import PhotoClusterCore
import PhotoClusterImaging

/// `FUZZ_VERBOSE=1 .build/release/FuzzMetadata FILE…` says what each input's header held.
private let verbose = getenv("FUZZ_VERBOSE") != nil

/// The header and metadata readers (JPEG segments, PNG chunks with inflated iCCP and iTXt, EXIF)
/// on any bytes: the input as a file, and as bare EXIF.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let header = try? ImageCodec.inspect(data) {
        if verbose {
            print("FuzzMetadata: \(header.format) \(header.width)x\(header.height) orientation \(header.metadata.orientation.rawValue) icc \(header.metadata.iccProfile?.count ?? 0) exif \(header.metadata.exif?.count ?? 0) xmp \(header.metadata.xmp?.count ?? 0)")
        }
        if let exif = header.metadata.exif { exercise(exif) }
    }
    exercise(data)
    return 0
}

private func exercise(_ exif: Data) {
    _ = Exif.orientation(in: exif)
    _ = Exif.rights(in: exif)
    if let reset = Exif.resettingOrientation(of: exif, width: 640, height: 480), reset.count != exif.count {
        fatalError("resetting the orientation changed the EXIF's size")
    }
}
