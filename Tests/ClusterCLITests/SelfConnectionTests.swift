import Foundation
import PhotoClusterTestSupport
import XCTest

/// A worker whose connection to the coordinator reaches the worker itself. In a host (a network
/// namespace) whose only ephemeral port is the coordinator's, with nothing listening there, the
/// kernel gives the worker's connect that very port and the socket joins itself, every time:
/// the worker must believe none of its own messages, stay idle, and join the coordinator once
/// one listens.
final class SelfConnectionTests: XCTestCase {
    func testAWorkerConnectedToItselfBelievesNothingAndJoinsOnceACoordinatorListens() throws {
        let lab = try NetworkLab()
        defer { lab.tearDown() }
        try lab.addHost("solo", octet: 1)
        try lab.ip(lab.command(on: "solo", ["sysctl", "-qw", "net.ipv4.ip_local_port_range=40000 40000"]))
        let worker = try RunningCommand(binary: NetworkLab.ipTool, arguments: lab.command(on: "solo", [
            Repository.clusterBinary.path, "worker", "--insecure", "--coordinator", "tcp://127.0.0.1:40000", "--id", "lonely",
            "--metrics-bind", "off",
        ]))
        defer { worker.stop() }

        XCTAssertTrue(eventually(timeout: 20) { worker.stderrSoFar.contains("reached this worker itself") }, String(worker.stderrSoFar.prefix(2000)))
        let cpuBefore = ProcessStat(pid: worker.process.pid)?.cpuSeconds ?? 0
        Thread.sleep(forTimeInterval: 1)  // a rate: a worker that spins burns about a second of CPU in it
        let cpu = (ProcessStat(pid: worker.process.pid)?.cpuSeconds ?? 0) - cpuBefore
        XCTAssertLessThan(cpu, 0.3, "the worker spun on its own messages")
        XCTAssertFalse(worker.stderrSoFar.contains("registered with"), "it took its own hello for a welcome:\n\(worker.stderrSoFar.prefix(2000))")
        XCTAssertFalse(worker.stderrSoFar.contains("photo failed"), "it took its own messages for work:\n\(worker.stderrSoFar.prefix(2000))")

        // Another port to connect from, and a coordinator on the one the worker wants.
        try lab.ip(lab.command(on: "solo", ["sysctl", "-qw", "net.ipv4.ip_local_port_range=40001 40001"]))
        // The connections the worker dropped leave the port in TIME-WAIT for a minute, which a
        // listener cannot bind over: remove them (ss -K) before the coordinator starts.
        var coordinator: RunningCommand!
        for _ in 0..<20 {
            try lab.ip(lab.command(on: "solo", ["ss", "-K", "-tan", "state", "time-wait"]))
            coordinator = try RunningCommand(binary: NetworkLab.ipTool, arguments: lab.command(on: "solo", [
                Repository.clusterBinary.path, "coordinator", "--insecure", "--bind", "tcp://127.0.0.1:40000", "--client-bind", "tcp://127.0.0.1:39000",
                "--metrics-bind", "off", "--http", "off",
            ]))
            // It says where workers connect once it has bound; a busy port ends it instead.
            _ = eventually(timeout: 10) { coordinator.stderrSoFar.contains("workers connect to") || !coordinator.process.isRunning }
            if coordinator.process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.5)
        }
        defer { coordinator.stop() }
        XCTAssertTrue(eventually(timeout: 30) { worker.stderrSoFar.contains("registered with coordinator-") },
            "worker:\n\(worker.stderrSoFar.prefix(2000))\ncoordinator:\n\(coordinator.stderrSoFar.prefix(2000))")
    }
}
