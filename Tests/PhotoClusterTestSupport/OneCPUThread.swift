import Foundation
import PhotoClusterCore

/// Runs `body` on a new thread whose affinity allows one CPU only, as `taskset -c N` pins a
/// process; programs it spawns inherit that mask. Returns what `body` returned, or nil when
/// the thread could not be pinned.
public func onThreadPinnedToOneCPU<T>(_ body: @escaping @Sendable () throws -> T) throws -> T? {
    // sched_setaffinity needs _GNU_SOURCE, which Swift's Glibc lacks: look it up by name.
    typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity") else { return nil }
    let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
    let result = LockedBox<Result<T, Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        defer { done.signal() }
        // The first CPU the kernel accepts, in a mask of 1,024 CPUs (glibc's cpu_set_t).
        let pinned = (0..<1024).contains { cpu in
            var mask = [UInt8](repeating: 0, count: 128)
            mask[cpu / 8] = 1 << (cpu % 8)
            return setAffinity(0, mask.count, &mask) == 0
        }
        guard pinned else { return }
        result.withLock { $0 = Result { try body() } }
    }
    thread.start()
    done.wait()
    return try result.current?.get()
}
