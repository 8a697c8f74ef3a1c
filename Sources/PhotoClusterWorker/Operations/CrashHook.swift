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

    /// `PHOTOCLUSTER_TEST_CRASH_AFTER_ADMISSION_ON_URL=TEXT`: the same once the photo was admitted
    /// into the memory budget, a moment later (as a photo that outgrows its grant is killed
    /// while it decodes), so the coordinator has heard of its grant.
    static let admittedTrigger = ProcessInfo.processInfo.environment["PHOTOCLUSTER_TEST_CRASH_AFTER_ADMISSION_ON_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    static func afterAdmission(_ url: String) {
        guard let admittedTrigger, url.contains(admittedTrigger) else { return }
        Thread.sleep(forTimeInterval: 0.5)
        kill(getpid(), SIGKILL)
    }
}
#endif
