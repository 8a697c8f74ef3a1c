import Foundation
@testable import PhotoClusterPluginHost
import XCTest

/// A plugin host starts with only what a plugin needs: never the worker's credentials.
final class PluginHostEnvironmentTests: XCTestCase {
    func testScrubbingKeepsWhatAPluginNeedsAndDropsSecrets() {
        let worker = [
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC", "TMPDIR": "/var/tmp",
            "PHOTOCLUSTER_PLUGINS": "/opt/plugins", "LD_LIBRARY_PATH": "/opt/lib",
            "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token", "AWS_REGION": "eu-west-1",
            "AWS_ENDPOINT_URL_S3": "http://s3.internal", "HOME": "/root", "USER": "photocluster", "DATABASE_PASSWORD": "hunter2",
            "GITHUB_TOKEN": "ghp", "PHOTOCLUSTER_CURVE_SECRET_KEY": "k", "LC_API_KEY": "k", "SSH_AUTH_SOCK": "/tmp/agent",
        ]
        XCTAssertEqual(PluginHostEnvironment.scrubbed(worker), [
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC", "TMPDIR": "/var/tmp",
            "PHOTOCLUSTER_PLUGINS": "/opt/plugins", "LD_LIBRARY_PATH": "/opt/lib", "SWIFT_BACKTRACE": "enable=no",
        ])
        XCTAssertEqual(PluginHostEnvironment.scrubbed([:]), ["PATH": "/usr/local/bin:/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no"])
        XCTAssertEqual(PluginHostEnvironment.scrubbed(["SWIFT_BACKTRACE": "enable=yes"])["SWIFT_BACKTRACE"], "enable=yes")
    }

    /// A real process started the way plugin hosts are reports the environment it got.
    func testAHostProcessSeesNoCredentials() throws {
        setenv("AWS_SECRET_ACCESS_KEY", "tenancy-test-secret", 1)
        setenv("AWS_ACCESS_KEY_ID", "AKIATENANCYTEST", 1)
        defer {
            unsetenv("AWS_SECRET_ACCESS_KEY")
            unsetenv("AWS_ACCESS_KEY_ID")
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
        XCTAssertTrue(names.allSatisfy { PluginHostEnvironment.isPassed($0) || ["PWD", "SHLVL", "_", "OLDPWD"].contains($0) }, "\(names.sorted())")
    }
}
