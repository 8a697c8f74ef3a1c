import ArgumentParser
import Foundation
import PhotoClusterTransport

/// `cluster token`: HTTP API tokens in an authorized-keys file.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Make, list and revoke HTTP API tokens (in an authorized-keys file).",
        discussion: """
            A token acts as a CURVE key of its role: a client token sees and acts on its own jobs, an \
            admin token on every job. The file keeps each token's SHA-256, never the token; a \
            coordinator reading the file (--authorized-keys) picks changes up within two seconds.
            """,
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct FileOption: ParsableArguments {
        @Option(name: .customLong("keys"), help: ArgumentHelp("The authorized-keys file the coordinator reads (--authorized-keys).", valueName: "file"))
        var keys: String

        var tokenFile: TokenFile { TokenFile(URL(fileURLWithPath: keys)) }

        func validate() throws {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: keys, isDirectory: &isDirectory), isDirectory.boolValue {
                throw ValidationError("--keys \(keys) is a directory, which holds .pub files only: name a file (and give it to the coordinator with another --authorized-keys)")
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a token: prints it once (only its digest is kept).")

        @OptionGroup var file: FileOption
        @Option(help: ArgumentHelp("The token's name (letters, digits, . _ -): its jobs' owner, `token:NAME` in grant lines.", valueName: "name"))
        var name: String
        @Option(help: ArgumentHelp("client (its own jobs) or admin (every job).", valueName: "role"))
        var role: String = "client"
        @Option(help: ArgumentHelp("A comment for the file (who holds it).", valueName: "text"))
        var comment: String?

        func validate() throws {
            guard let role = KeyRole(rawValue: role), APIToken.roles.contains(role) else {
                throw ValidationError("--role must be client or admin, got \"\(role)\"")
            }
            if let problem = APIToken.nameProblem(name) { throw ValidationError("--name: \(problem)") }
        }

        func run() throws {
            do {
                let token = try file.tokenFile.create(name: name, role: KeyRole(rawValue: role)!, comment: comment)
                print(token)
                Terminal.error("token \(name) (\(role)) listed in \(file.keys); it is shown only now. A coordinator reading that file takes it within 2 s.")
            } catch {
                CommandFailure(message: "\(error)", status: 1).exit()
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tokens of a file (names and roles; tokens cannot be shown again).")

        @OptionGroup var file: FileOption

        func run() throws {
            do {
                for listing in try file.tokenFile.list() {
                    print([listing.name, listing.role.rawValue, listing.comment ?? ""].joined(separator: "\t"))
                }
            } catch {
                CommandFailure(message: "\(error)", status: 1).exit()
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token (and its grants): a coordinator refuses it within 2 s.")

        @OptionGroup var file: FileOption
        @Option(help: ArgumentHelp("The token's name.", valueName: "name"))
        var name: String

        func run() throws {
            do {
                guard try file.tokenFile.revoke(name: name) else {
                    CommandFailure(message: "no token named \(name) in \(file.keys) (`cluster token list --keys \(file.keys)` lists them)", status: 2).exit()
                }
                Terminal.error("token \(name) revoked in \(file.keys)")
            } catch {
                CommandFailure(message: "\(error)", status: 1).exit()
            }
        }
    }
}
