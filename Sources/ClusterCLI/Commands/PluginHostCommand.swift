import ArgumentParser
import Foundation
import PhotoClusterPluginHost

/// `cluster plugin-host`: the child process a worker (or any `cluster` command that needs
/// plugins) starts to load and run plugin filters, so a plugin that crashes takes down only
/// this process. Not for people: it speaks to its parent over descriptor 3.
struct PluginHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin-host",
        abstract: "Load filter plugins and run them for the parent process (started by workers).",
        shouldDisplay: false
    )

    @Option(help: ArgumentHelp("The process this host serves; the host ends with it.", valueName: "pid"))
    var parent: Int32

    @Argument(help: ArgumentHelp("The plugin files to load, in order.", valueName: "file"))
    var files: [String] = []

    func run() throws {
        Foundation.exit(PluginHostServer.run(parent: parent, files: files))
    }
}
