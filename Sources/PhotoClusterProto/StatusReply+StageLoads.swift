extension Photocluster_V1_StageLoad {
    /// The stage's operations, queued or running.
    public var total: UInt32 { queued + running }
}

extension Photocluster_V1_StatusReply {
    /// Queued and running operations per stage, summed over every worker: the queues `cluster
    /// top`, the dashboard and `GET /v1/status` show. A stage no worker reported is absent.
    public var stageLoads: [Photocluster_V1_Stage: Photocluster_V1_StageLoad] {
        var loads: [Photocluster_V1_Stage: Photocluster_V1_StageLoad] = [:]
        for load in workers.flatMap(\.stages) {
            var sum = loads[load.stage] ?? Photocluster_V1_StageLoad.with { $0.stage = load.stage }
            sum.queued += load.queued
            sum.running += load.running
            loads[load.stage] = sum
        }
        return loads
    }
}
