import Foundation
import PhotoClusterTransport

/// Where a worker's messages go: the routing id of the connection that last spoke with the
/// worker's registered key, never the worker's name.
///
/// A worker with CURVE keys announces a routing id no other peer knows (`RoutingIdentity`), and
/// the ROUTER never gives an id in use to another connection. Messages are sent to that id alone:
/// a connection of another key announcing the worker's name, or any other id, is sent nothing,
/// and the worker's own connection is left alone. `workerRoutes` belongs to the loop thread.
extension CoordinatorNode {
    /// Loop thread: `routingID`'s message for worker `id` passed the key checks (its key is the
    /// one the worker registered with, or the worker is not registered). A hello moves the
    /// worker's route there (a worker says hello on each new connection); another message only
    /// gives a worker without a route one (it or the coordinator restarted, and it is asked to
    /// say hello), so the last messages of a connection it has left do not take the route back.
    func noteWorkerRoute(_ id: String, routingID: Data, hello: Bool) {
        guard hello || workerRoutes[id] == nil, workerRoutes[id] != routingID else { return }
        workerRoutes[id] = routingID
    }

    /// The routing id to send worker `id`'s messages to; nil when none of its connections has
    /// spoken. Without CURVE a worker's routing id is its name, as anyone's may be.
    func workerRoute(_ id: String) -> Data? {
        if let routingID = workerRoutes[id] { return routingID }
        return authorizedKeys == nil ? workers[id]?.identity ?? Data(id.utf8) : nil
    }

    /// Once a second: routes of connections that spoke but never registered (or whose worker
    /// has gone) are forgotten; a worker's next message binds its route again.
    func forgetRoutesOfUnregisteredWorkers() {
        guard workerRoutes.count > workers.count else { return }
        workerRoutes = workerRoutes.filter { workers[$0.key] != nil }
    }
}
