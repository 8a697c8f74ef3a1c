import Foundation

/// The kernels `resize` and `thumbnail` resample with, by the number their `kernel` parameter
/// holds (a spec may name them: `kernel=cubic`). Lanczos-3 is the default: the sharpest of them
/// without ringing one notices, and what libvips, sharp and imgproxy use. The shapes are Pillow's
/// (so its `Image.resize` is an exact reference): linear is the triangle, cubic is Keys' with
/// a = −0.5 (Catmull-Rom), lanczos3 is sinc(x)·sinc(x/3) on |x| < 3.
public enum ResampleKernel: Int, CaseIterable, Sendable {
    case nearest = 0, linear, cubic, lanczos3

    /// The names a spec may use for the numbers, in order.
    public static let names = ["nearest", "linear", "cubic", "lanczos3"]

    /// Half the kernel's width, in input pixels at scale 1 (stretched by the shrink factor).
    var support: Double {
        switch self {
        case .nearest: return 0.5
        case .linear: return 1
        case .cubic: return 2
        case .lanczos3: return 3
        }
    }

    func weight(_ x: Double) -> Double {
        let x = abs(x)
        switch self {
        case .nearest:
            return x < 0.5 ? 1 : 0
        case .linear:
            return x < 1 ? 1 - x : 0
        case .cubic:
            let a = -0.5
            if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
            if x < 2 { return (((x - 5) * x + 8) * x - 4) * a }
            return 0
        case .lanczos3:
            guard x < 3 else { return 0 }
            return Self.sinc(x) * Self.sinc(x / 3)
        }
    }

    private static func sinc(_ x: Double) -> Double {
        x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
    }
}
