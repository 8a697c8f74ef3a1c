/// How many graphs a worker tells the coordinator it can take. Its rule: never grant a slot it
/// has not got. The credit granted since its last hello, less the graphs sent to it since, plus
/// the graphs it holds, stays within its window; the simulator checks this on every grant.
package struct WorkerCredit: Equatable, Sendable {
    /// The most graphs the worker holds at once (running plus queued behind them).
    package let window: Int

    package init(window: Int) {
        self.window = window
    }

    /// The slots not held. A hello grants them (the coordinator registers the worker afresh,
    /// with no credit), and a heartbeat names them (the coordinator raises a credit lost in
    /// transit to them). Every graph held returns its credit when it ends, a successor waiting
    /// behind a cancelled photo too, so what is held is not free.
    package func free(heldGraphs: Int) -> UInt32 {
        UInt32(max(0, window - heldGraphs))
    }

    /// The credit graphs that ended give back: one each, however they ended (done, failed,
    /// cancelled, handed back, dropped).
    package func returned(byEnded graphs: Int) -> UInt32 {
        UInt32(max(0, graphs))
    }
}
