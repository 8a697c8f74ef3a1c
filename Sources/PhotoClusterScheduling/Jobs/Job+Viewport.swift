import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What a viewport change asks of the workers, per worker (by number, see `WorkerNumber`),
/// worked out from the photos in flight.
package struct ViewportChange {
    package let epoch: UInt64
    /// The viewport the job left, to find the photos whose place changed.
    package let previous: ViewportPlanner
    package internal(set) var cancels: [WorkerNumber: [UInt32]] = [:]
    package internal(set) var priorities: [WorkerNumber: [Photocluster_V1_PriorityUpdate]] = [:]

    package var cancelledCount: Int { cancels.values.reduce(0) { $0 + $1.count } }
}

/// A viewport change costs the photos in flight and the photos whose band changed, never the
/// job's size: the queue follows the new viewport in O(1) (see `ViewportQueue`), and only photos
/// entering or leaving visible ∪ prefetch are looked at.
extension Job {
    /// Moves to `viewport` at the next epoch and says what the workers must do: settled, every
    /// photo in flight out of view is cancelled and every one whose band changed is told its new
    /// band; scrolling, nothing (the job is suspended). Nothing else is done: `settle` follows
    /// once the messages are out.
    package func moveViewport(to viewport: Viewport) -> ViewportChange {
        let previous = planner
        epoch += 1
        self.viewport = viewport
        var change = ViewportChange(epoch: epoch, previous: previous)
        guard !viewport.scrolling else { return change }
        let plan = planner
        var retold: [(UInt32, PriorityBand)] = []
        defer { for (index, band) in retold { inFlight[index] = band } }
        for (index, told) in inFlight {
            let worker = photos[Int(index)].worker
            guard worker != .none else { continue }
            let position = Int(index)
            if !plan.wants(position) {
                change.cancels[worker, default: []].append(index)
                continue
            }
            let band = plan.band(of: position)
            guard band != told else { continue }
            retold.append((index, band))
            change.priorities[worker, default: []].append(.with {
                $0.photoIndex = index
                $0.band = band.proto
                $0.rank = Int64(plan.rank(of: position))
            })
        }
        return change
    }

    /// After the change's messages are out: parks the photos it cancelled (they run again when
    /// back in view), and lets the followers of photos that entered or left view run alone or
    /// wait for their leader again.
    package func settle(_ change: ViewportChange) {
        for indices in change.cancels.values {
            for index in indices { park(index) }
        }
        refreshFollowers(after: change.previous)
    }

    /// Only a leader whose wanted-ness changed can change its followers' readiness, and only
    /// photos in visible ∪ prefetch before or after can have changed (batch mode wants all).
    private func refreshFollowers(after previous: ViewportPlanner) {
        guard viewportMode, !followersByLeader.isEmpty else { return }
        let now = planner
        for range in [previous.viewport.interest(count: total), now.viewport.interest(count: total)] {
            guard let range else { continue }
            for index in range where followersByLeader[UInt32(index)] != nil && previous.wants(index) != now.wants(index) {
                refreshQueue(UInt32(index))
            }
        }
    }
}
