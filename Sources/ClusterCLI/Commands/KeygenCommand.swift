import ArgumentParser
import Foundation
import PhotoClusterTransport

/// `cluster keygen`: a CURVE key pair for a coordinator, worker or client.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a CURVE key pair: NAME.key (secret, mode 0600) and NAME.pub (share this one).",
        discussion: "Give the coordinator the .pub files of its workers and clients with --authorized-keys; give workers and clients the coordinator's .pub with --coordinator-key."
    )

    @Option(help: "File name without extension.") var name: String
    @Option(help: ArgumentHelp("Directory for the files.", valueName: "dir")) var out = "."
    @Flag(help: "Replace existing files.") var force = false

    func validate() throws {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else { throw ValidationError("--name must be a plain file name") }
    }

    func run() throws {
        do {
            let keys = try CurveKeyPair.generate()
            let files = try keys.write(to: URL(fileURLWithPath: out, isDirectory: true), name: name, overwrite: force)
            Terminal.write("secret key: \(files.secretFile.path)\npublic key: \(files.publicFile.path) (\(keys.publicKey))\n")
        } catch let error as CurveKeyError {
            CommandFailure(message: "\(error)\(error.problem == .alreadyExists ? " (use --force to replace it)" : "")", status: 1).exit()
        }
    }
}
