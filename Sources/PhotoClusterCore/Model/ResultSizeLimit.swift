import Foundation

/// The largest result a worker may send through the coordinator, and what a photo over it says.
/// The coordinator announces its limit in its welcome; the worker holds each result to it, so a
/// result too large for one message fails its photo once instead of being dropped in transit
/// (which would take the worker's other reports with it, and bring the photo back again).
public enum ResultSizeLimit {
    /// What the coordinator takes in one message by default, and a worker assumes until it hears.
    public static let defaultBytes: Int64 = 256 << 20

    /// "its result is 301.2 MiB, over the coordinator's limit of 256.0 MiB (…)": for the photo's
    /// failure reason, with what to do about it.
    public static func refusal(bytes: Int, limit: Int64) -> String {
        "its result is \(size(Int64(bytes))), over the coordinator's limit of \(size(limit)) for a result it writes "
            + "(cluster coordinator --max-result-bytes); make it smaller (a resize, JPEG or WebP output) or write outputs where "
            + "workers store them themselves (--out s3://… or --out-shared)"
    }

    /// "146.5 KiB", "301.2 MiB".
    public static func size(_ bytes: Int64) -> String {
        bytes < 1 << 20 ? String(format: "%.1f KiB", Double(bytes) / 1024) : String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
    }
}
