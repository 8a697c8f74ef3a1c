import CPluginHost
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Memory a worker and its plugin host both map: a memfd, passed over their socket once when it
/// is made. A header page holds the flags the two processes share; the pixels follow it.
///
/// Each side keeps its arena for as long as the host lives, so a photo costs one copy in and
/// one copy out and no page faults after the first; an arena too small for a photo is replaced
/// by a larger one (by the worker for an input, by the host for a result).
///
/// Owned by one thread at a time (the lease holder on the worker, the host's only thread);
/// `@unchecked Sendable` for the hand-over between leases.
final class SharedArena: @unchecked Sendable {
    /// Bytes before the pixels: one page, so the pixels start page-aligned.
    static let headerBytes = 4096
    /// The largest arena made: the decoder's pixel cap (100 MP of RGBA8) and its header.
    static let maxBytes = 400_000_000 + headerBytes

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let descriptor: Int32
    /// Header plus pixel capacity.
    let byteCount: Int
    private let base: UnsafeMutableRawPointer

    /// A new arena of at least `pixelBytes` of pixels, rounded up to whole megabytes so photos
    /// of similar size reuse it.
    static func make(pixelBytes: Int) throws -> SharedArena {
        let rounded = (pixelBytes + (1 << 20) - 1) & ~((1 << 20) - 1)
        let total = headerBytes + max(rounded, 1 << 20)
        guard total <= maxBytes + (1 << 20) else {
            throw Failure(description: "\(pixelBytes) bytes of pixels are more than plugins are given")
        }
        let fd = ph_memfd("photocluster-pixels", UInt64(total))
        guard fd >= 0 else { throw Failure(description: "memfd_create: \(String(cString: strerror(-fd)))") }
        do {
            return try SharedArena(mapping: fd, byteCount: total)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Maps an arena the other process made; takes ownership of `fd`.
    init(mapping fd: Int32, byteCount: Int) throws {
        guard byteCount > Self.headerBytes, byteCount <= Self.maxBytes + (1 << 20) else {
            throw Failure(description: "an arena of \(byteCount) bytes is out of range")
        }
        // The size the peer claims must be the file's: a shorter file would fault on access.
        var status = stat()
        guard fstat(fd, &status) == 0, Int(status.st_size) >= byteCount else {
            throw Failure(description: "the arena file is smaller than \(byteCount) bytes")
        }
        guard let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw Failure(description: "mmap of \(byteCount) bytes: \(String(cString: strerror(errno)))")
        }
        self.descriptor = fd
        self.byteCount = byteCount
        self.base = mapped
    }

    deinit {
        munmap(base, byteCount)
        close(descriptor)
    }

    var pixelCapacity: Int { byteCount - Self.headerBytes }
    var pixels: UnsafeMutablePointer<UInt8> { (base + Self.headerBytes).assumingMemoryBound(to: UInt8.self) }

    /// Set by the worker when the photo is cancelled or over its time limit; the plugin's
    /// `is_cancelled` reads it.
    var cancelFlag: UnsafeMutablePointer<UInt32> { base.assumingMemoryBound(to: UInt32.self) }
    /// The chain step the host is running, set by the host before each step, so the worker can
    /// time each filter and name the one that crashed.
    var stepFlag: UnsafeMutablePointer<UInt32> { (base + 64).assumingMemoryBound(to: UInt32.self) }

    var isCancelRaised: Bool { ph_load_flag(cancelFlag) != 0 }
    func raiseCancel() { ph_store_flag(cancelFlag, 1) }

    var step: Int { Int(ph_load_flag(stepFlag)) }
    func setStep(_ step: Int) { ph_store_flag(stepFlag, UInt32(step)) }

    /// Clears both flags before a request.
    func reset() {
        ph_store_flag(cancelFlag, 0)
        ph_store_flag(stepFlag, 0)
    }
}
