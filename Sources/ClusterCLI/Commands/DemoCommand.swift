import ArgumentParser
import Foundation
import LoopbackHTTP
import PhotoClusterCore

/// `cluster demo`: the bundled sample photos, served on loopback, filtered by an embedded cluster.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Filter the bundled sample photos with an embedded cluster (serves them on loopback itself)."
    )

    /// The origin the bundled manifest's URLs use.
    static let manifestOrigin = "http://127.0.0.1:8765"

    @Option(help: ArgumentHelp("The samples directory (holds photos.plist and photos/).", valueName: "dir"))
    var samples = "samples"

    @OptionGroup var options: JobOptions

    func run() async throws {
        let samplesURL = URL(fileURLWithPath: samples, isDirectory: true)
        let manifestURL = samplesURL.appendingPathComponent("photos.plist")
        guard FileManager.default.fileExists(atPath: manifestURL.path) else {
            CommandFailure.usage("\(manifestURL.path) not found; run the demo from the repository root or pass --samples DIR").exit()
        }
        let server: LoopbackHTTPServer
        do {
            server = try (try? LoopbackHTTPServer.serving(directory: samplesURL.appendingPathComponent("photos"), port: 8765))
                ?? LoopbackHTTPServer.serving(directory: samplesURL.appendingPathComponent("photos"))
        } catch {
            CommandFailure(message: "cannot start the loopback photo server: \(error)", status: 1).exit()
        }
        defer { server.stop() }
        var manifest: Manifest
        do {
            manifest = try ManifestParser().parse(contentsOf: manifestURL)
        } catch {
            CommandFailure.usage("\(error)").exit()
        }
        // The manifest names port 8765; follow the server if it had to take another port.
        for index in manifest.entries.indices where manifest.entries[index].url.hasPrefix(Self.manifestOrigin) {
            manifest.entries[index].url = server.baseURL + manifest.entries[index].url.dropFirst(Self.manifestOrigin.count)
        }
        if !options.json {
            Terminal.write("Serving \(samplesURL.appendingPathComponent("photos").path) at \(server.baseURL)\n")
        }
        do {
            let submit = try options.submitMessage(for: manifest, label: "samples/photos.plist", defaultFilters: ["sepia"], filters: JobRunner.filters(options.plugins))
            let status = try await JobRunner(options: options).run(submit)
            if !options.json {
                Terminal.write("Filtered photos are in \(options.out)/. Two names in the manifest are misspelled on purpose: their downloads fail with HTTP 404.\n")
            }
            if status != ExitStatus.allSucceeded { throw ExitCode(status) }
        } catch let failure as CommandFailure {
            failure.exit()
        }
    }
}
