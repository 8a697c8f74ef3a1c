import Foundation
import XCTest

/// Hosts for multi-host tests: network namespaces joined through a bridge that lives in a
/// namespace of its own, so nothing touches the machine's real network. Every address is one
/// of the lab's; everything is removed by `tearDown()`.
final class NetworkLab {
    let prefix: String
    let subnet = "10.213.0"
    private(set) var hosts: [String: String] = [:]  // name → address
    private var namespaces: [String] = []
    private var switchName: String { "\(prefix)sw" }

    /// Makes the switch, or throws XCTSkip where namespaces cannot be made (not root, no iproute2).
    init() throws {
        prefix = "pc\(getpid() % 10000)"
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: Self.ipTool.path) else {
            throw XCTSkip("multi-host tests need root and iproute2 to make network namespaces")
        }
        do {
            try addNamespace(switchName)
            try ip(["netns", "exec", switchName, "ip", "link", "add", "br0", "type", "bridge"])
            try ip(["netns", "exec", switchName, "ip", "link", "set", "br0", "up"])
        } catch {
            tearDown()
            throw XCTSkip("cannot make network namespaces here (\(error)); multi-host test skipped")
        }
    }

    /// A host with one interface on the lab's switch at `subnet.octet`.
    @discardableResult
    func addHost(_ name: String, octet: Int) throws -> String {
        let namespace = "\(prefix)\(name)"
        let address = "\(subnet).\(octet)"
        try addNamespace(namespace)
        let outside = "\(prefix)\(name)s", inside = "\(prefix)\(name)h"
        try ip(["link", "add", inside, "netns", namespace, "type", "veth", "peer", "name", outside, "netns", switchName])
        try ip(["netns", "exec", switchName, "ip", "link", "set", outside, "master", "br0", "up"])
        try ip(["netns", "exec", namespace, "ip", "addr", "add", "\(address)/24", "dev", inside])
        try ip(["netns", "exec", namespace, "ip", "link", "set", inside, "up"])
        hosts[name] = address
        return address
    }

    /// A host linked straight to this machine by a veth pair of its own (not to the switch), so
    /// that processes of the test itself reach it, as another host of a private network: this
    /// machine's end gets `here`, the host's end `host` (10.214.N.1 and 10.214.N.2, N from this
    /// process's id). The pair goes away with the host's namespace in `tearDown()`.
    @discardableResult
    func addHostLinkedHere(_ name: String) throws -> (host: String, here: String) {
        let namespace = "\(prefix)\(name)"
        let subnet = "10.214.\(getpid() % 250 + 1)"
        try addNamespace(namespace)
        let outside = "\(prefix)\(name)r", inside = "\(prefix)\(name)h"
        try? ip(["link", "del", outside])  // a leftover of an interrupted run
        try ip(["link", "add", outside, "type", "veth", "peer", "name", inside, "netns", namespace])
        try ip(["addr", "add", "\(subnet).1/24", "dev", outside])
        try ip(["link", "set", outside, "up"])
        try ip(["netns", "exec", namespace, "ip", "addr", "add", "\(subnet).2/24", "dev", inside])
        try ip(["netns", "exec", namespace, "ip", "link", "set", inside, "up"])
        hosts[name] = "\(subnet).2"
        return ("\(subnet).2", "\(subnet).1")
    }

    /// Cuts a host's only link, as a pulled cable would.
    func unplug(_ name: String) throws {
        try ip(["netns", "exec", "\(prefix)\(name)", "ip", "link", "set", "\(prefix)\(name)h", "down"])
    }

    /// Caps a host's link to `rate` (tc's syntax: "8mbit") both ways, as a slow network card
    /// would: what the host sends (its interface) and what it receives (the switch's side).
    func cap(_ name: String, rate: String) throws {
        for (namespace, interface) in [("\(prefix)\(name)", "\(prefix)\(name)h"), (switchName, "\(prefix)\(name)s")] {
            try ip(["netns", "exec", namespace, "tc", "qdisc", "add", "dev", interface, "root", "tbf", "rate", rate, "burst", "32kb", "latency", "100ms"])
        }
    }

    /// Caps only what a host sends.
    func capUplink(_ name: String, rate: String) throws {
        try ip(["netns", "exec", "\(prefix)\(name)", "tc", "qdisc", "add", "dev", "\(prefix)\(name)h", "root", "tbf", "rate", rate, "burst", "32kb", "latency", "100ms"])
    }

    /// Bytes a host has received on its link so far.
    func receivedBytes(_ name: String) throws -> Int {
        let result = try Tool.run(Self.ipTool.path, ["netns", "exec", "\(prefix)\(name)", "cat", "/sys/class/net/\(prefix)\(name)h/statistics/rx_bytes"])
        guard result.status == 0, let bytes = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure(command: "rx_bytes of \(name)", output: result.output)
        }
        return bytes
    }

    /// The command line that runs `arguments` inside a host.
    func command(on name: String, _ arguments: [String]) -> [String] {
        ["netns", "exec", "\(prefix)\(name)"] + arguments
    }

    func tearDown() {
        for namespace in namespaces.reversed() { try? ip(["netns", "del", namespace]) }
        namespaces.removeAll()
    }

    private func addNamespace(_ name: String) throws {
        try? ip(["netns", "del", name])  // a leftover of an interrupted run
        try ip(["netns", "add", name])
        namespaces.append(name)
        try ip(["netns", "exec", name, "ip", "link", "set", "lo", "up"])
    }

    struct Failure: Error, CustomStringConvertible {
        let command: String
        let output: String
        var description: String { "ip \(command): \(output)" }
    }

    /// iproute2's `ip`, where Debian puts it.
    static var ipTool: URL {
        URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip")
    }

    func ip(_ arguments: [String]) throws {
        let result = try Tool.run(Self.ipTool.path, arguments)
        guard result.status == 0 else { throw Failure(command: arguments.joined(separator: " "), output: result.output) }
    }
}
