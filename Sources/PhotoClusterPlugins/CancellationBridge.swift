import CPhotoClusterPluginABI

/// Lets a plugin's C code call a Swift cancellation check: the C callback receives a context
/// pointer to a box holding the closure. The box lives only for the one call, so nothing global
/// is shared between photos.
enum CancellationBridge {
    static func withCallback<Result>(
        _ isCancelled: () -> Bool,
        _ body: (pc_is_cancelled_fn, UnsafeMutableRawPointer) throws -> Result
    ) rethrows -> Result {
        // The plugin calls back only while `body` runs (ABI contract), so the closure does not
        // really escape.
        try withoutActuallyEscaping(isCancelled) { check in
            let box = Box(check)
            return try withExtendedLifetime(box) {
                try body(callback, Unmanaged.passUnretained(box).toOpaque())
            }
        }
    }

    private final class Box {
        let check: () -> Bool
        init(_ check: @escaping () -> Bool) { self.check = check }
    }

    private static var callback: pc_is_cancelled_fn {
        { context in
            guard let context else { return 0 }
            return Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().check() ? 1 : 0
        }
    }
}
