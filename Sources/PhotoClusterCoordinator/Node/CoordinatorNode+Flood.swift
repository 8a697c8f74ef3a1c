import Foundation

/// After a flood of client requests, the memory it took goes back to the system.
extension CoordinatorNode {
    /// Once a second: when a flood of viewport changes has ended, the allocator's free memory
    /// is handed back (`malloc_trim`). glibc keeps freed memory for reuse, so a coordinator that
    /// once held a burst's messages would otherwise keep that size for ever.
    func returnMemoryAfterFlood() {
        let (_, flooded) = viewportInbox.closeSecond(now: .now)
        if flooded {
            floodSeen = true
        } else if floodSeen {
            floodSeen = false
            Self.trimAllocator()
            log("a flood of viewport changes ended: \(viewportInbox.coalesced) changes coalesced and \(viewportInbox.limited) refused so far; free memory returned")
        }
    }

    /// glibc's `malloc_trim(0)`, which its Swift module does not export; found at run time, and
    /// nothing where the C library has none.
    private static let trimAllocator: () -> Void = {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return {} }
        let trim = unsafeBitCast(symbol, to: Trim.self)
        return { _ = trim(0) }
    }()
}
