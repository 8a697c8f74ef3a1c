/// Label values shared by coordinator and worker metrics.
public enum MetricLabels {
    public static let stages = ["download", "decode", "filter", "encode", "write"]
    public static let outcomes = ["succeeded", "failed", "cancelled"]
}

extension Dictionary where Key == String {
    /// One handle per label value, made up front: the dictionary never changes afterwards, so it
    /// can be read from any thread.
    init(labels: [String], make: (String) -> Value) {
        self.init(uniqueKeysWithValues: labels.map { ($0, make($0)) })
    }
}
