import ArgumentParser
import Foundation
import Logging
import PhotoClusterCore
import PhotoClusterDashboard

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
        let photos = samplesURL.appendingPathComponent("photos")
        let server: HTTPServer
        do {
            server = try await Self.servePhotos(photos)
        } catch {
            CommandFailure(message: "cannot start the loopback photo server for \(photos.path): \(error)", status: 1).exit()
        }
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
            Terminal.write("Serving \(photos.path) at \(server.baseURL)\n")
        }
        let status: Int32
        do {
            var submit = try options.submitMessage(for: manifest, label: "samples/photos.plist", defaultFilters: ["sepia"], filters: JobRunner.filters(options.plugins))
            // The demo's output directory is its own: each run replaces the last one's photos.
            submit.replaceOutputs = true
            status = try await JobRunner(options: options).run(submit)
        } catch let failure as CommandFailure {
            await server.stop()
            failure.exit()
        }
        await server.stop()
        if !options.json {
            Terminal.write("Filtered photos are in \(options.out)/. Two names in the manifest are misspelled on purpose: their downloads fail with HTTP 404.\n")
        }
        if status != ExitStatus.allSucceeded { throw ExitCode(status) }
    }

    /// Serves `directory` on loopback with Hummingbird: on the manifest's port 8765, or on one the
    /// system picks when 8765 is taken.
    static func servePhotos(_ directory: URL) async throws -> HTTPServer {
        let quiet = Logger(label: "photocluster.demo.photos", factory: { _ in SwiftLogNoOpLogHandler() })
        let router = FolderRoutes.router(serving: directory, logger: quiet)
        if let server = try? await HTTPServer.start(host: "127.0.0.1", port: 8765, router: router, logger: quiet) {
            return server
        }
        return try await HTTPServer.start(host: "127.0.0.1", port: 0, router: router, logger: quiet)
    }
}
