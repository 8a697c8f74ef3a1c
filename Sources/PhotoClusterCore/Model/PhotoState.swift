/// Where a photo's record stands: new → downloaded → filtered → done, or failed, or cancelled.
public enum PhotoState: String, Sendable, Codable, CaseIterable {
    case new, downloaded, filtered, done, failed, cancelled

    public var isTerminal: Bool { self == .done || self == .failed || self == .cancelled }
}
