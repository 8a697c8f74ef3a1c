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
}
