#if DEBUG
import Foundation

/// For the fault tests, in debug builds only: with `PHOTOCLUSTER_TEST_CRASH_ON_URL=TEXT`, a worker
/// kills itself (SIGKILL, as the OOM killer does) when it starts decoding a photo whose URL
/// contains TEXT, so a test can make a photo that crashes every worker it reaches. Release builds
/// have no such hook.
enum CrashHook {
    static let trigger = ProcessInfo.processInfo.environment["PHOTOCLUSTER_TEST_CRASH_ON_URL"].flatMap { $0.isEmpty ? nil : $0 }

    static func beforeDecoding(_ url: String) {
        if let trigger, url.contains(trigger) { kill(getpid(), SIGKILL) }
    }
}
#endif
