import CPluginHost

/// How a plugin host process ended.
enum HostTermination: Equatable, CustomStringConvertible {
    case signal(Int32)
    case exited(Int32)

    /// "SIGSEGV", or "exit status 3" for a plugin that called exit().
    var description: String {
        switch self {
        case .signal(let number): return ph_signal_name(number).map { String(cString: $0) } ?? "signal \(number)"
        case .exited(let status): return "exit status \(status)"
        }
    }
}
