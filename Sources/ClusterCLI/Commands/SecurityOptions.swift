import ArgumentParser
import Foundation
import PhotoClusterTransport

/// CURVE keys for a node that connects to the coordinator (a worker or a client command).
struct ClientSecurityOptions: ParsableArguments {
    @Option(name: .customLong("curve-secret"), help: ArgumentHelp("This node's secret key file (from `cluster keygen`); enables CURVE.", valueName: "file"))
    var curveSecret: String?

    @Option(name: .customLong("coordinator-key"), help: ArgumentHelp("The coordinator's public key file (its .pub).", valueName: "file"))
    var coordinatorKey: String?

    func validate() throws {
        if (curveSecret == nil) != (coordinatorKey == nil) {
            throw ValidationError("--curve-secret and --coordinator-key go together: CURVE needs this node's secret key and the coordinator's public key")
        }
    }

    /// The settings, or nil for a plain connection. Key file problems are usage errors.
    func settings() throws -> CurveClientSettings? {
        guard let curveSecret, let coordinatorKey else { return nil }
        do {
            return CurveClientSettings(
                keys: try CurveKeyPair.load(secretFile: URL(fileURLWithPath: curveSecret)),
                serverPublicKey: try CurveKeyPair.loadPublicKey(file: URL(fileURLWithPath: coordinatorKey)))
        } catch let error as CurveKeyError {
            throw CommandFailure.usage("\(error)")
        }
    }
}

/// A plain TCP endpoint carries photos and commands in the clear to anyone on the network.
enum InsecureEndpoint {
    static func isNetwork(_ endpoint: String) -> Bool { endpoint.hasPrefix("tcp://") }

    static func refusal(_ role: String, _ endpoints: [String]) -> String {
        "\(role) over \(endpoints.joined(separator: " and ")) without CURVE keys would let anyone connect: give keys (`cluster keygen`, then --curve-secret …) or accept the risk with --insecure"
    }
}
