import Foundation

/// Where human output goes, and whether it is a terminal.
enum Terminal {
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

/// A failure the CLI reports with its own message and exit status.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    let status: Int32
    var description: String { message }

    static func usage(_ message: String) -> CommandFailure { CommandFailure(message: message, status: ExitStatus.usage) }
}

extension CommandFailure {
    /// Prints the message and exits with the status.
    func exit() -> Never {
        Terminal.error("error: \(message)")
        Foundation.exit(status)
    }
}
