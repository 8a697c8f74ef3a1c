import PhotoClusterCore
import XCTest

/// The AVX2 build of the pixel loops gives the same bytes as the baseline build, into another
/// buffer and in place.
final class KernelSetTests: XCTestCase {
    typealias Loop = (KernelSet, UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int, Float) -> Void

    private func assertBothBuildsAgree(_ name: String, _ loop: Loop) throws {
        guard KernelSet.cpuHasAVX2 else { throw XCTSkip("this CPU has no AVX2: only the baseline loops run here") }
        let count = 4099  // not a multiple of any vector width, so the tail loop runs too
        var state: UInt32 = 12345
        let source = (0..<count * 4).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        for strength: Float in [0.35, 0.8, 1] {
            var baseline = [UInt8](repeating: 0, count: count * 4)
            var avx2 = [UInt8](repeating: 0, count: count * 4)
            loop(.baseline, source, &baseline, count, strength)
            loop(.avx2, source, &avx2, count, strength)
            XCTAssertEqual(baseline, avx2, "\(name) at \(strength)")
            XCTAssertNotEqual(baseline, source, "\(name): the loop did something")
            var inPlace = source
            inPlace.withUnsafeMutableBufferPointer { loop(.avx2, $0.baseAddress!, $0.baseAddress!, count, strength) }
            XCTAssertEqual(inPlace, baseline, "\(name) in place at \(strength)")
        }
    }

    func testBothBuildsOfTheSepiaLoopGiveTheSameBytes() throws {
        try assertBothBuildsAgree("sepia") { $0.sepiaTone($1, into: $2, count: $3, intensity: $4) }
    }

    func testBothBuildsOfTheGrayscaleLoopGiveTheSameBytes() throws {
        try assertBothBuildsAgree("grayscale") { $0.grayscale($1, into: $2, count: $3, amount: $4) }
    }
}
