import Foundation
@testable import PhotoClusterPluginHost
import XCTest

/// A plugin host starts with only what a plugin needs: never the worker's credentials.
final class PluginHostEnvironmentTests: XCTestCase {
    func testOnlyAllowedNamesPass() {
        let worker = [
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC", "TMPDIR": "/var/tmp",
            "PHOTOCLUSTER_PLUGINS": "/opt/plugins", "LD_LIBRARY_PATH": "/opt/lib",
            "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token", "AWS_REGION": "eu-west-1",
            "AWS_ENDPOINT_URL_S3": "http://s3.internal", "HOME": "/root", "USER": "photocluster", "DATABASE_PASSWORD": "hunter2",
            "GITHUB_TOKEN": "ghp", "PHOTOCLUSTER_CURVE_SECRET_KEY": "k", "LC_API_KEY": "k", "SSH_AUTH_SOCK": "/tmp/agent",
            // Secrets whose names carry none of the words a block-list would look for.
            "PHOTOCLUSTER_DB_PASS": "hunter3", "PHOTOCLUSTER_AUTH_HEADER": "Bearer x", "PHOTOCLUSTER_PRIVATE_PEM": "-----BEGIN",
            "LC_DSN": "postgres://u:p@db", "PHOTOCLUSTER_": "x",
        ]
        XCTAssertEqual(PluginHostEnvironment.scrubbed(worker, also: []), [
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC", "TMPDIR": "/var/tmp",
            "PHOTOCLUSTER_PLUGINS": "/opt/plugins", "LD_LIBRARY_PATH": "/opt/lib", "SWIFT_BACKTRACE": "enable=no",
        ])
        XCTAssertEqual(PluginHostEnvironment.scrubbed([:], also: []), ["PATH": "/usr/local/bin:/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no"])
        XCTAssertEqual(PluginHostEnvironment.scrubbed(["SWIFT_BACKTRACE": "enable=yes"], also: [])["SWIFT_BACKTRACE"], "enable=yes")
    }

    /// What the operator names is passed on, and only that.
    func testOperatorNamedVariablesPass() {
        let worker = ["PATH": "/bin", "MODEL_DIR": "/models", "PHOTOCLUSTER_DB_PASS": "hunter3"]
        XCTAssertEqual(
            PluginHostEnvironment.scrubbed(worker, also: ["MODEL_DIR"]),
            ["PATH": "/bin", "MODEL_DIR": "/models", "SWIFT_BACKTRACE": "enable=no"])
        XCTAssertTrue(PluginHostEnvironment.isVariableName("MODEL_DIR"))
        for bad in ["", "1ABC", "A=B", "A B", "ÄB", "A-B"] {
            XCTAssertFalse(PluginHostEnvironment.isVariableName(bad), bad)
            XCTAssertThrowsError(try PluginHostEnvironment.passAlso([bad]), bad)
        }
    }

    /// A real process started the way plugin hosts are reports the environment it got.
    func testAHostProcessSeesNoCredentials() throws {
        setenv("AWS_SECRET_ACCESS_KEY", "tenancy-test-secret", 1)
        setenv("AWS_ACCESS_KEY_ID", "AKIATENANCYTEST", 1)
        setenv("PHOTOCLUSTER_DB_PASS", "tenancy-test-db-pass", 1)
        setenv("PHOTOCLUSTER_PRIVATE_PEM", "tenancy-test-pem", 1)
        defer {
            unsetenv("AWS_SECRET_ACCESS_KEY")
            unsetenv("AWS_ACCESS_KEY_ID")
            unsetenv("PHOTOCLUSTER_DB_PASS")
            unsetenv("PHOTOCLUSTER_PRIVATE_PEM")
        }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("host-environment-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        defer { pair.forEach { close($0) } }
        let pid = try HostSpawner.shared.spawn("/bin/sh", ["-c", "env > '\(report.path)'"], childSocket: pair[1])
        var status: Int32 = 0
        XCTAssertEqual(waitpid(pid, &status, 0), pid)
        let seen = try String(contentsOf: report, encoding: .utf8)
        let names = Set(seen.split(separator: "\n").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        XCTAssertTrue(names.contains("PATH"), seen)
        XCTAssertFalse(seen.contains("tenancy-test-secret"), seen)
        XCTAssertFalse(seen.contains("AKIATENANCYTEST"), seen)
        XCTAssertFalse(seen.contains("tenancy-test-db-pass"), seen)
        XCTAssertFalse(seen.contains("tenancy-test-pem"), seen)
        XCTAssertTrue(names.allSatisfy { PluginHostEnvironment.isPassed($0) || ["PWD", "SHLVL", "_", "OLDPWD"].contains($0) }, "\(names.sorted())")
    }
}
