import PhotoClusterCore
import XCTest

/// The AVX2 build of the pixel loops gives the same bytes as the baseline build, into another
/// buffer and in place.
final class KernelSetTests: XCTestCase {
    typealias Loop = (KernelSet, UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int, Float) -> Void

    private func assertBothBuildsAgree(_ name: String, _ loop: Loop) throws {
        guard KernelSet.cpuHasAVX2 else { throw XCTSkip("this CPU has no AVX2: only the baseline loops run here") }
        let count = 4099  // not a multiple of any vector width, so the tail loop runs too
        var generator = SeededRandom(seed: 12345)
        let source = (0..<count * 4).map { _ in UInt8.random(in: 0...255, using: &generator) }
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

    func testBothBuildsOfTheBlurSumsGiveTheSameFloatsAsThePlainSum() throws {
        guard KernelSet.cpuHasAVX2 else { throw XCTSkip("this CPU has no AVX2: only the baseline loops run here") }
        let taps = 13, count = 4 * 101  // a tail after the blocks of 32
        var generator = SeededRandom(seed: 99)
        func next() -> Float { Float(UInt8.random(in: 0...255, using: &generator)) }
        let weights = (0..<taps).map { _ in next() / 3000 }
        let padded = (0..<count + 4 * (taps - 1)).map { _ in next() }
        let rows = (0..<taps).map { _ in (0..<count).map { _ in next() } }
        var plainRow = [Float](repeating: 0, count: count), plainSum = [Float](repeating: 0, count: count)
        for k in 0..<taps {
            for i in 0..<count {
                plainRow[i] += weights[k] * padded[i + 4 * k]
                plainSum[i] += weights[k] * rows[k][i]
            }
        }
        for kernels in [KernelSet.baseline, .avx2] {
            var row = [Float](repeating: -1, count: count), sum = [Float](repeating: -1, count: count)
            kernels.blurHorizontal(padded, weights: weights, taps: taps, into: &row, count: count)
            let pointers = rows.map { _ in UnsafeMutablePointer<Float>.allocate(capacity: count) }
            defer { pointers.forEach { $0.deallocate() } }
            for (pointer, values) in zip(pointers, rows) { pointer.initialize(from: values, count: count) }
            let sources: [UnsafePointer<Float>] = pointers.map { UnsafePointer<Float>($0) }
            sources.withUnsafeBufferPointer { buffer in
                kernels.blurVertical(buffer.baseAddress!, weights: weights, taps: taps, into: &sum, count: count)
            }
            XCTAssertEqual(row, plainRow, "\(kernels) horizontal")
            XCTAssertEqual(sum, plainSum, "\(kernels) vertical")
        }
    }

    func testBothBuildsOfTheResizeVerticalPassGiveTheSameFloatsAsThePlainSum() throws {
        let taps = 13, count = 4 * 101  // a tail after the blocks of 32
        var generator = SeededRandom(seed: 98)
        let weights = (0..<taps).map { _ in Float(UInt8.random(in: 0...255, using: &generator)) / 3000 - 0.02 }
        let rows = (0..<taps).map { _ in (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        var plain = [Float](repeating: 0, count: count)
        for k in 0..<taps {
            for i in 0..<count { plain[i] = plain[i] + weights[k] * Float(rows[k][i]) }
        }
        for kernels in KernelSet.cpuHasAVX2 ? [KernelSet.baseline, .avx2] : [.baseline] {
            var sum = [Float](repeating: -1, count: count)
            let pointers = rows.map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: count) }
            defer { pointers.forEach { $0.deallocate() } }
            for (pointer, values) in zip(pointers, rows) { pointer.initialize(from: values, count: count) }
            let sources: [UnsafePointer<UInt8>] = pointers.map { UnsafePointer<UInt8>($0) }
            sources.withUnsafeBufferPointer { buffer in
                kernels.resampleVertical(buffer.baseAddress!, weights: weights, taps: taps, into: &sum, count: count)
            }
            XCTAssertEqual(sum, plain, "\(kernels)")
        }
    }

    /// Output pixels in fours and a tail of three, overlapping taps as a shrink has them, weights
    /// that overshoot both ways: each pixel is the plain in-order sum, clamped and rounded.
    func testBothBuildsOfTheResizeHorizontalPassGiveThePlainSumRounded() throws {
        let taps = 13, width = 4 * 25 + 3, inputPixels = 2 * width + taps
        var generator = SeededRandom(seed: 97)
        let sum = (0..<inputPixels * 4).map { _ in Float(UInt16.random(in: 0...300, using: &generator)) - 20 }
        let first = (0..<width).map { 2 * $0 }
        // Every fifth pixel's weights sum well over one, every seventh's below zero.
        let weights = (0..<width * taps).map { i -> Float in
            let w = Float(UInt8.random(in: 0...255, using: &generator)) / 1200 - 0.05
            return (i / taps) % 5 == 0 ? w + 0.2 : (i / taps) % 7 == 0 ? w - 0.2 : w
        }
        var plain = [UInt8](repeating: 0, count: width * 4)
        for x in 0..<width {
            for c in 0..<4 {
                var a: Float = 0
                for k in 0..<taps { a = a + weights[x * taps + k] * sum[(first[x] + k) * 4 + c] }
                plain[x * 4 + c] = UInt8(min(max(a, 0), 255).rounded(.toNearestOrEven))
            }
        }
        XCTAssertTrue(plain.contains(0) && plain.contains(255), "the sums overshoot both ways")
        for kernels in KernelSet.cpuHasAVX2 ? [KernelSet.baseline, .avx2] : [.baseline] {
            var row = [UInt8](repeating: 7, count: width * 4)
            kernels.resampleHorizontal(sum, first: first, weights: weights, taps: taps, into: &row, width: width)
            XCTAssertEqual(row, plain, "\(kernels)")
        }
    }
}
