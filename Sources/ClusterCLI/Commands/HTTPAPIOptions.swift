import ArgumentParser
import Foundation
import PhotoClusterDashboard
import PhotoClusterHTTPAPI

/// The HTTP API's listener options: TLS, and each token's limits.
struct HTTPAPIOptions: ParsableArguments {
    @Option(name: .customLong("http-tls-cert"), help: ArgumentHelp("A PEM certificate chain: --http serves HTTPS (with --http-tls-key). Or put a reverse proxy that ends TLS in front (docs/http-api.md).", valueName: "file"))
    var tlsCertificate: String?

    @Option(name: .customLong("http-tls-key"), help: ArgumentHelp("The PEM private key of --http-tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Option(name: .customLong("http-rate"), help: ArgumentHelp("Requests a second each API token may make (bursts of twice as many); more are answered 429 with Retry-After.", valueName: "n"))
    var requestsPerSecond: Double = APILimits().requestsPerSecond

    @Option(name: .customLong("http-job-rate"), help: ArgumentHelp("Jobs each API token may submit a minute; more are answered 429 with Retry-After.", valueName: "n"))
    var jobsPerMinute: Double = APILimits().jobsPerMinute

    func validate() throws {
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--http-tls-cert and --http-tls-key go together: give both (a certificate and its key) or neither")
        }
        for (flag, file) in [("--http-tls-cert", tlsCertificate), ("--http-tls-key", tlsKey)] {
            if let file, !FileManager.default.isReadableFile(atPath: file) { throw ValidationError("\(flag) \(file): no such readable file") }
        }
        guard requestsPerSecond > 0 else { throw ValidationError("--http-rate must be more than 0, got \(requestsPerSecond)") }
        guard jobsPerMinute > 0 else { throw ValidationError("--http-job-rate must be more than 0, got \(jobsPerMinute)") }
    }

    var tls: TLSFiles? {
        guard let tlsCertificate, let tlsKey else { return nil }
        return TLSFiles(certificate: tlsCertificate, privateKey: tlsKey)
    }

    /// A body may be twice the largest manifest the coordinator takes (JSON is larger than the
    /// protocol's encoding, which the coordinator's own limit counts).
    func limits(maxManifestBytes: Int) -> APILimits {
        APILimits(requestsPerSecond: requestsPerSecond, burst: max(1, requestsPerSecond * 2), jobsPerMinute: jobsPerMinute,
                  maxBodyBytes: 2 * maxManifestBytes + (1 << 20))
    }
}
