import ArgumentParser
import Foundation
import PhotoClusterCore

/// `cluster submit MANIFEST`: filter the photos of a manifest and wait for the outcome.
struct SubmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Filter the photos of a manifest (property list, JSON or plain list of URLs).",
        discussion: """
            Exit status: 0 when every photo succeeded, 1 when any failed or was cancelled, 2 for \
            usage and manifest errors.
            """
    )

    @Argument(help: ArgumentHelp("The manifest: name → URL as a property list or JSON, or one URL per line.", valueName: "manifest"))
    var manifest: String

    @OptionGroup var options: JobOptions

    func run() async throws {
        let parsed: Manifest
        do {
            parsed = try ManifestParser().parse(contentsOf: URL(fileURLWithPath: manifest))
        } catch let error as ManifestError {
            CommandFailure.usage("\(error)").exit()
        }
        do {
            let submit = try options.submitMessage(for: parsed, label: (manifest as NSString).lastPathComponent, defaultFilters: ["sepia"], filters: JobRunner.filters(options.plugins))
            let status = try await JobRunner(options: options).run(submit)
            if status != ExitStatus.allSucceeded { throw ExitCode(status) }
        } catch let failure as CommandFailure {
            failure.exit()
        }
    }
}
