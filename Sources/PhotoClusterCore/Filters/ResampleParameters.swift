/// The parameters `resize` and `thumbnail` share: how they resample (see `ReductionPlan`).
enum ResampleParameters {
    static let list: [FilterParameter] = [
        FilterParameter(
            key: "kernel", kind: .int, range: 0...3, defaultValue: Double(ResampleKernel.lanczos3.rawValue),
            summary: "nearest, linear, cubic or lanczos3 (sharpest; the others are faster)", choices: ResampleKernel.names),
        FilterParameter(
            key: "linear", kind: .bool, range: 0...1, defaultValue: 0,
            summary: "1: resample in linear light (fine detail keeps its brightness; slower, no shrink while decoding)"),
        FilterParameter(
            key: "sharpen", range: 0...2, defaultValue: 0,
            summary: "unsharp mask amount (sigma 0.5) after a reduction of 2x or more; 0: none, ~0.5: light"),
    ]
}
