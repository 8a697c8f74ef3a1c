/// How many graphs a worker holds at once (running plus queued behind them): the credit it grants
/// the coordinator. The worker grants it and the coordinator bounds what a worker may claim with
/// the same figure, so a well-behaved worker never meets the bound.
public enum CreditWindow {
    /// Three graphs a stage thread, and at least four: enough queued that a thread never waits
    /// for the next graph to arrive.
    public static func graphs(concurrency: Int) -> Int { max(4, concurrency * 3) }
}
