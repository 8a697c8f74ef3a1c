/// Names of stages and phases as they appear in metric labels, logs and the dashboard's JSON.
extension Photocluster_V1_Stage {
    /// The `stage` label of metrics.
    public var metricLabel: String {
        switch self {
        case .download: return "download"
        case .decode: return "decode"
        case .filter: return "filter"
        case .encode: return "encode"
        case .write: return "write"
        case .schedule: return "schedule"
        default: return "unspecified"
        }
    }
}

extension Photocluster_V1_JobPhase {
    public var metricLabel: String {
        switch self {
        case .preparation: return "preparation"
        case .inProgress: return "in_progress"
        case .willFinish: return "will_finish"
        case .didFinish: return "did_finish"
        case .cancelled: return "cancelled"
        default: return "unspecified"
        }
    }

    /// The phase as people say it, for `status`, `top`, `watch` and the dashboard.
    public var displayName: String {
        switch self {
        case .preparation: return "preparing"
        case .inProgress: return "in progress"
        case .willFinish: return "finishing"
        case .didFinish: return "finished"
        case .cancelled: return "cancelled"
        case .UNRECOGNIZED(let value): return "phase \(value)"
        }
    }
}

extension Photocluster_V1_SpanOutcome {
    /// "ok", "failed" or "cancelled": how the task stream and `cluster trace` name it.
    public var label: String {
        switch self {
        case .ok: return "ok"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        case .UNRECOGNIZED(let value): return "outcome \(value)"
        }
    }
}
