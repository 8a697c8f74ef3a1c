import Foundation
import PhotoClusterKernels
import PhotoClusterKernelsAVX2

/// Which build of the pixel loops runs: the AVX2 one on CPUs that have it (about 1.6× the
/// baseline's speed for sepia: 8 floats per instruction instead of 4), else the baseline.
/// Chosen once per process; `PHOTOCLUSTER_KERNELS=baseline` forces the baseline.
public enum KernelSet: String, Sendable {
    case baseline
    case avx2

    /// The set this process uses.
    public static let current: KernelSet = {
        if ProcessInfo.processInfo.environment["PHOTOCLUSTER_KERNELS"] == "baseline" { return .baseline }
        return cpuHasAVX2 ? .avx2 : .baseline
    }()

    /// What `-target-cpu haswell` lets the compiler use, beyond the baseline.
    static let haswellFlags = ["avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm"]

    /// Whether the CPU and the kernel support what the AVX2 module was built for: Linux lists
    /// `avx2` among a CPU's flags only when the operating system saves the AVX registers. That
    /// module is only built for AVX2 on x86-64 (Package.swift), so elsewhere this is false.
    public static let cpuHasAVX2: Bool = {
        #if arch(x86_64) && os(Linux)
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flags = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return false }
        let present = Set(flags.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init))
        return haswellFlags.allSatisfy(present.contains)
        #else
        return false
        #endif
    }()

    /// The blur's horizontal pass over one padded row (see `BlurKernel.horizontal`).
    public func blurHorizontal(_ padded: UnsafePointer<Float>, weights: UnsafePointer<Float>, taps: Int, into row: UnsafeMutablePointer<Float>, count: Int) {
        switch self {
        case .baseline: PhotoClusterKernels.BlurKernel.horizontal(padded, weights: weights, taps: taps, into: row, count: count)
        case .avx2: PhotoClusterKernelsAVX2.BlurKernel.horizontal(padded, weights: weights, taps: taps, into: row, count: count)
        }
    }

    /// The blur's vertical pass over `taps` rows (see `BlurKernel.vertical`).
    public func blurVertical(_ rows: UnsafePointer<UnsafePointer<Float>>, weights: UnsafePointer<Float>, taps: Int, into sum: UnsafeMutablePointer<Float>, count: Int) {
        switch self {
        case .baseline: PhotoClusterKernels.BlurKernel.vertical(rows, weights: weights, taps: taps, into: sum, count: count)
        case .avx2: PhotoClusterKernelsAVX2.BlurKernel.vertical(rows, weights: weights, taps: taps, into: sum, count: count)
        }
    }

    /// A resize's vertical pass over `taps` rows of bytes (see `ResampleLoops.vertical`).
    public func resampleVertical(
        _ rows: UnsafePointer<UnsafePointer<UInt8>>, weights: UnsafePointer<Float>, taps: Int, into sum: UnsafeMutablePointer<Float>, count: Int
    ) {
        switch self {
        case .baseline: PhotoClusterKernels.ResampleLoops.vertical(rows, weights: weights, taps: taps, into: sum, count: count)
        case .avx2: PhotoClusterKernelsAVX2.ResampleLoops.vertical(rows, weights: weights, taps: taps, into: sum, count: count)
        }
    }

    /// A resize's horizontal pass from one combined float row to bytes (see `ResampleLoops.horizontal`).
    public func resampleHorizontal(
        _ sum: UnsafePointer<Float>, first: UnsafePointer<Int>, weights: UnsafePointer<Float>, taps: Int,
        into row: UnsafeMutablePointer<UInt8>, width: Int
    ) {
        switch self {
        case .baseline:
            PhotoClusterKernels.ResampleLoops.horizontal(sum, first: first, weights: weights, taps: taps, into: row, width: width)
        case .avx2:
            PhotoClusterKernelsAVX2.ResampleLoops.horizontal(sum, first: first, weights: weights, taps: taps, into: row, width: width)
        }
    }

    /// Rec. 709 grayscale of `count` pixels (see `GrayscaleKernel.gray`).
    public func grayscale(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int, amount: Float) {
        switch self {
        case .baseline: PhotoClusterKernels.GrayscaleKernel.gray(source, into: destination, count: count, amount: amount)
        case .avx2: PhotoClusterKernelsAVX2.GrayscaleKernel.gray(source, into: destination, count: count, amount: amount)
        }
    }

    /// Sepia tone of `count` pixels (see `SepiaKernel.tone`).
    public func sepiaTone(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int, intensity: Float) {
        switch self {
        case .baseline: PhotoClusterKernels.SepiaKernel.tone(source, into: destination, count: count, intensity: intensity)
        case .avx2: PhotoClusterKernelsAVX2.SepiaKernel.tone(source, into: destination, count: count, intensity: intensity)
        }
    }
}
