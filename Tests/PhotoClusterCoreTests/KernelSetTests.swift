import PhotoClusterCore
import XCTest

/// The AVX2 build of the pixel loops gives the same bytes as the baseline build.
final class KernelSetTests: XCTestCase {
    func testBothBuildsOfTheSepiaLoopGiveTheSameBytes() throws {
        guard KernelSet.cpuHasAVX2 else { throw XCTSkip("this CPU has no AVX2: only the baseline loops run here") }
        let count = 4099  // not a multiple of any vector width, so the tail loop runs too
        var state: UInt32 = 12345
        let source = (0..<count * 4).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        for intensity: Float in [0.35, 0.8, 1] {
            var baseline = [UInt8](repeating: 0, count: count * 4)
            var avx2 = [UInt8](repeating: 0, count: count * 4)
            KernelSet.baseline.sepiaTone(source, into: &baseline, count: count, intensity: intensity)
            KernelSet.avx2.sepiaTone(source, into: &avx2, count: count, intensity: intensity)
            XCTAssertEqual(baseline, avx2, "intensity \(intensity)")
            XCTAssertNotEqual(baseline, source, "the loop did something")
        }
    }
}
