import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// The job's queue of photos waiting for a worker, in viewport order.
extension Job {
    /// Whether a photo should be queued now: wanted by the viewport, not settled, not in flight,
    /// not waiting for its leader's result, not waiting out a retry.
    func shouldQueue(_ photo: PhotoRecord) -> Bool {
        !photo.isSettled && !photo.isInFlight && !waitsForLeader(photo)
            && planner.wants(Int(photo.index)) && !delayed.contains { $0.index == photo.index }
    }

    /// A follower gets a copy of its leader's result while the leader can still make one: it is
    /// unsettled and running or wanted. Otherwise (the leader was cancelled by name, is out of
    /// view, or settled before the follower after a restart) the follower runs on its own.
    func waitsForLeader(_ photo: PhotoRecord) -> Bool {
        guard let leader = photo.leader.map({ photos[Int($0)] }) else { return false }
        return !leader.isSettled && (leader.isInFlight || planner.wants(Int(leader.index)))
    }

    /// Rebuilds the queue from scratch in viewport order (visible, then prefetch, then the rest,
    /// nearer the centre first).
    mutating func rebuildQueue() {
        let candidates = photos.filter(shouldQueue).map { Int($0.index) }
        pending = planner.order(candidates).map(UInt32.init)
        pendingHead = 0
    }

    /// The next queued photo that `canRun` accepts, removed from the queue, looking at no more
    /// than `window` entries. Photos it refuses stay queued in order.
    mutating func takeNext(window: Int = .max, where canRun: (PhotoRecord) -> Bool) -> PhotoRecord? {
        var index = pendingHead
        var looked = 0
        while index < pending.count && looked < window {
            let candidate = photos[Int(pending[index])]
            let stale = candidate.isSettled || candidate.isInFlight
            if stale || canRun(candidate) {
                // The head moves forward in O(1); anything further back is removed in place.
                if index == pendingHead {
                    pendingHead += 1
                    compactPending()
                    index = pendingHead
                } else {
                    pending.remove(at: index)
                }
                if stale { continue }
                return candidate
            }
            index += 1
            looked += 1
        }
        return nil
    }

    /// The photos still queued, for capability checks.
    var pendingPhotos: [PhotoRecord] {
        pending[pendingHead...].map { photos[Int($0)] }.filter { !$0.isSettled && !$0.isInFlight }
    }

    mutating func assign(_ index: UInt32, to worker: String) -> Photocluster_V1_PhotoGraph {
        photos[Int(index)].worker = worker
        photos[Int(index)].attempts += 1
        if photos[Int(index)].state == .cancelled { setState(index, .new) }
        let photo = photos[Int(index)]
        let plan = planner
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = id
        graph.photoIndex = photo.index
        graph.name = photo.name
        graph.url = photo.url
        graph.filters = photo.filters
        graph.format = format
        graph.quality = quality
        graph.fastDct = fastDCT
        graph.band = plan.band(of: Int(photo.index)).proto
        graph.rank = Int64(plan.rank(of: Int(photo.index)))
        graph.epoch = epoch
        graph.attempt = photo.attempts
        return graph
    }

    /// Puts an in-flight photo back at the front of the queue (its worker was lost or gave it back).
    mutating func requeue(_ index: UInt32) {
        guard !photos[Int(index)].isSettled else { return }
        photos[Int(index)].worker = nil
        requeues += 1
        if pendingHead > 0 {
            pendingHead -= 1
            pending[pendingHead] = index
        } else {
            pending.insert(index, at: 0)
        }
    }

    mutating func scheduleRetry(_ index: UInt32, after delay: TimeInterval, now: MonotonicInstant = .now) {
        photos[Int(index)].worker = nil
        retries += 1
        delayed.append((now.adding(seconds: delay), index))
    }

    /// Moves retries whose back-off has passed back into the queue.
    mutating func releaseDueRetries(now: MonotonicInstant = .now) {
        let due = delayed.filter { $0.due <= now }
        guard !due.isEmpty else { return }
        delayed.removeAll { $0.due <= now }
        pending.append(contentsOf: due.map(\.index))
    }

    private mutating func compactPending() {
        if pendingHead > 1024 && pendingHead * 2 > pending.count {
            pending.removeFirst(pendingHead)
            pendingHead = 0
        }
    }
}

extension PriorityBand {
    var proto: Photocluster_V1_PriorityBand {
        switch self {
        case .visible: return .visible
        case .prefetch: return .prefetch
        case .background: return .background
        }
    }
}
