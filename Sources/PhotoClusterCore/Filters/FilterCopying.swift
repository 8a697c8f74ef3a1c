#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FilterStage {
    /// Filters a copy of `image` and leaves `image` as it was: what a stage does with an image it
    /// shares (the worker keeps decoded and filtered images in its stage cache).
    ///
    /// The default copies into uninitialised memory (`FilterPixels.allocate`: no zeroing, large
    /// buffers on huge pages) and filters the copy in place. Point filters override it to read
    /// `image` and write the copy in one pass, so the copy costs no pass of its own.
    public func apply(toCopyOf image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        guard let copy = FilterPixels.copy(of: image) else {
            throw FilterFailure(filter: descriptor.name, reason: "out of memory copying \(image.width)x\(image.height) pixels")
        }
        return try apply(to: copy, parameters: parameters, isCancelled: isCancelled)
    }
}

/// Pixel memory for images that filters create.
public enum FilterPixels {
    /// A new image whose pixels are uninitialised (every byte must be written before it is read),
    /// or nil when the size is not positive or memory runs out. `malloc`ed, so `RGBAImage` frees
    /// it; buffers of 8 MB and more are advised onto transparent huge pages, so a 12-megapixel
    /// image is faulted in as ~24 pages instead of ~12,000 (bench/run: a copy of 48 MB costs
    /// about a third as much).
    public static func allocate(width: Int, height: Int) -> RGBAImage? {
        guard width > 0, height > 0, width <= Int(Int32.max) / 4, height <= Int(Int32.max) else { return nil }
        let (count, overflow) = width.multipliedReportingOverflow(by: height * 4)
        guard !overflow, let raw = malloc(count) else { return nil }
        #if canImport(Glibc)
        if count >= 8 << 20 {
            let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
            let start = (UInt(bitPattern: raw) + page - 1) & ~(page - 1)
            let end = (UInt(bitPattern: raw) + UInt(count)) & ~(page - 1)
            if end > start { _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_HUGEPAGE) }
        }
        #endif
        return RGBAImage(width: width, height: height, adoptingMallocedPixels: raw.assumingMemoryBound(to: UInt8.self))
    }

    /// A deep copy in memory from `allocate`.
    public static func copy(of image: RGBAImage) -> RGBAImage? {
        guard let copy = allocate(width: image.width, height: image.height) else { return nil }
        copy.pixels.update(from: image.pixels, count: image.byteCount)
        return copy
    }
}
