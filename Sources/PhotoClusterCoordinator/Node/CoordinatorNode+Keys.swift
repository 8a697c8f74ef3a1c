import Foundation
import PhotoClusterProto
import PhotoClusterTransport

/// The authorized keys in force: refusals at the handshake, a reload without a restart, and a
/// removed key's connections dropped.
///
/// The ZAP handler checks each handshake against its copy of the keys; the loop keeps its own
/// (`authorizedKeys`) and checks every message too, so a key removed while connected is
/// refused at once, before its connection is dropped (`PeerEvictor` shuts its TCP socket down).
extension CoordinatorNode {
    /// Replaces the authorized keys (a reload: SIGHUP, or a key file that changed). New
    /// handshakes use them at once; connections of keys no longer admitted are dropped, their
    /// workers lost (photos requeued) and their clients told. Any thread.
    public func replaceAuthorizedKeys(_ keys: AuthorizedKeys) {
        guard let zap else { return }
        zap.authorizedKeys = keys
        tokenKeys.withLock { $0 = keys }
        loop.post { [self] in applyAuthorizedKeys(keys) }
    }

    /// Loop thread: a handshake the ZAP handler refused.
    func connectionRefused(_ decision: ZAPHandler.Decision) {
        let endpoint = decision.endpoint?.peerName ?? "a"
        log(.warning, "refused a \(endpoint) connection from \(decision.address): \(decision.refusal ?? "refused")")
        metrics.refusedRequest(reason: "key")
    }

    /// At start: what the keys allow, and a warning for each key without a role.
    func describeAuthorizedKeys(_ keys: AuthorizedKeys) {
        let counts = keys.countsByRole
        log("authorized keys: \(keys.count) (\(KeyRole.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")))")
        let granted = keys.keys.filter { !keys.s3Grants(of: $0).isEmpty }.count
        log("S3 grants: \(granted) key(s) with grants; keys without one: \(s3DefaultAccess == .allow ? "any S3 location" : "no S3") (--s3-default-access \(s3DefaultAccess.rawValue))")
        for (key, label) in keys.keysWithoutRole {
            log(.warning, "authorized key \(key) (\(label)) has no role, so it may join as a worker and submit as a client, as every key could "
                + "before roles: give it one, with a line `worker KEY \(label)` (or client, admin) or by moving \(label).pub into a worker/, "
                + "client/ or admin/ directory of the authorized keys")
        }
    }

    /// Loop thread: takes the new keys, and drops the connections they no longer admit.
    private func applyAuthorizedKeys(_ keys: AuthorizedKeys) {
        let previous = authorizedKeys ?? AuthorizedKeys()
        authorizedKeys = keys
        let removed = previous.keys.subtracting(keys.keys).sorted()
        let added = keys.keys.subtracting(previous.keys).sorted()
        let changed = previous.keys.intersection(keys.keys).filter { previous.roles(of: $0) != keys.roles(of: $0) }.sorted()
        let regranted = keys.keys.filter { previous.s3Grants(of: $0) != keys.s3Grants(of: $0) }.sorted()
        log("authorized keys reloaded: \(added.count) added, \(removed.count) removed, \(changed.count) with other roles, \(regranted.count) with other S3 grants")
        for key in removed { log("authorized key removed: \(previous.describe(key))") }
        for key in added + changed { log("authorized key now: \(keys.describe(key))") }
        for key in regranted {
            let grants = keys.s3Grants(of: key)
            log("S3 grants of \(keys.describe(key)): \(grants.isEmpty ? "none" : grants.map(\.description).joined(separator: ", "))")
        }
        describeAuthorizedKeys(keys)
        for worker in workers.values {
            guard let key = worker.key, let refusal = keys.refusal(of: key, at: .workers) else { continue }
            tellCore(.workerRemoved(worker.id, .keyRemoved(refusal)))
            if let route = workerRoute(worker.id) { scheduleEviction(of: route, from: .workers) }
        }
        for (identity, client) in clientKeys {
            guard let refusal = keys.refusal(of: client.key, at: .clients) else { continue }
            log(.warning, "client connection dropped: \(refusal)")
            dropClient(identity, because: refusal)
        }
        dropRevokedLocalClients()
    }

    /// Tells a client its key no longer gets in, forgets what it watched, and drops its connection.
    func dropClient(_ identity: Data, because refusal: String) {
        clientKeys.removeValue(forKey: identity)
        unsubscribe(identity)
        sendToClient(identity, .error(.with {
            $0.message = "the coordinator no longer accepts this client: \(refusal); ask its operator to authorize the key as a client"
            $0.refusal = .keyRemoved
        }))
        metrics.refusedRequest(reason: "key")
        scheduleEviction(of: identity, from: .clients)
    }

    /// Loop thread: a connection with another key than the registered one speaks under a
    /// registered worker's name (or a client's routing id heard from). It was sent nothing: a
    /// worker's messages go to the route its own key spoke from (`workerRoute`), which no other
    /// key can announce (`RoutingIdentity`). Nothing it says is believed, it is logged and
    /// counted, and its connection is detached at once.
    func refuseImpostor(_ identity: Data, at endpoint: ServerEndpoint, holder: String, registeredKey: String?, key: String?) {
        metrics.refusedRequest(reason: "routing_id")
        impostorsRefused += 1
        let (shouldLog, unlogged) = rejectionLog.shouldLog(worker: holder)
        if shouldLog {
            let earlier = unlogged > 0 ? " (\(unlogged) more since the last line)" : ""
            log(.warning, "refused a \(endpoint.peerName) connection with key \(key ?? "none") that claims the routing id of \(holder), "
                + "registered with key \(registeredKey ?? "none"): dropped\(earlier)")
        }
        evictions.append((endpoint, identity, Date()))
    }

    /// The notice sent just before has a moment to leave before the connection is detached.
    private func scheduleEviction(of identity: Data, from endpoint: ServerEndpoint) {
        evictions.append((endpoint, identity, Date().addingTimeInterval(0.2)))
    }

    /// Loop timer: drops the connections whose time has come (one that has closed meanwhile
    /// needs nothing more).
    func evictDueConnections() {
        guard !evictions.isEmpty else { return }
        let now = Date()
        let due = evictions.filter { $0.due <= now }
        evictions.removeAll { $0.due <= now }
        for eviction in due { evictors[eviction.endpoint]?.evict(eviction.identity) }
    }

    /// Why a message arriving with `key` on `endpoint` is not believed (the key was removed or
    /// its role changed since the handshake), or nil. Without CURVE every message is.
    func keyRefusal(_ key: String?, at endpoint: ServerEndpoint) -> String? {
        guard let keys = authorizedKeys else { return nil }
        guard let key else { return "a message without a CURVE key" }
        return keys.refusal(of: key, at: endpoint)
    }

    /// Loop thread: a client connection was heard from with `key`.
    func noteClient(_ identity: Data, key: String) {
        clientKeys[identity] = (key, Date())
    }

    /// Once a second: clients heartbeat every second, so one silent for a while has gone.
    func forgetQuietClients() {
        let cutoff = Date().addingTimeInterval(-30)
        clientKeys = clientKeys.filter { $0.value.lastSeen >= cutoff }
        for evictor in evictors.values { evictor.forgetClosed() }
    }
}
