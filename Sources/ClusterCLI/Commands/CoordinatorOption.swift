import ArgumentParser
import PhotoClusterClient
import PhotoClusterTransport

/// `--coordinator` for the commands that talk to a running coordinator.
struct CoordinatorOption: ParsableArguments {
    @Option(help: ArgumentHelp(CoordinatorListHelp.client, valueName: "endpoint[,endpoint…]"))
    var coordinator = "tcp://127.0.0.1:7001"

    @OptionGroup var security: ClientSecurityOptions

    func validate() throws {
        _ = try CoordinatorListHelp.endpoints(coordinator)
    }

    /// The endpoints of `--coordinator`, in the order the client tries them.
    var endpoints: [String] { (try? CoordinatorEndpointList.parse(coordinator)) ?? [coordinator] }

    func connect() throws -> ClusterClient {
        try ClusterClient(endpoints: endpoints, curve: try security.settings())
    }

    /// Runs a request, turning a failure into a message and exit status 1.
    func run<T>(_ body: (ClusterClient) async throws -> T) async throws -> T {
        let client = try connect()
        defer { client.close() }
        do {
            return try await body(client)
        } catch let error as ClusterClientError {
            CommandFailure(message: error.message, status: ExitStatus.somePhotosFailed).exit()
        }
    }
}
