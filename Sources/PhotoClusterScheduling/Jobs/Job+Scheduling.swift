import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// The job's queue of photos waiting for a worker, in viewport order (see `ViewportQueue`).
///
/// A photo is in the queue while it is ready: not settled, not in flight, not waiting out a
/// retry, and not waiting for its leader's result. Whether the viewport wants it is the queue's
/// own business. Every change that can make a photo ready or not goes through `setState` or
/// `setWorker`, which call `refreshQueue`, so the queue is always true and nothing rebuilds or
/// re-sorts it after the job is made.
extension Job {
    /// Whether a photo belongs in the queue now. A suspect (lost with a worker that died) never
    /// does: it waits behind the whole queue (see `Job+WorkerLosses`).
    package func isReady(_ photo: PhotoRecord) -> Bool {
        !photo.isSettled && !photo.isInFlight && !delayedIndices.contains(photo.index) && !waitsForLeader(photo)
            && workerLosses[photo.index] == nil
    }

    /// A follower gets a copy of its leader's result while the leader can still make one: it is
    /// unsettled and running or wanted. Otherwise (the leader was cancelled by name, is out of
    /// view, or settled before the follower after a restart) the follower runs on its own.
    package func waitsForLeader(_ photo: PhotoRecord) -> Bool {
        guard let leader = photo.leader.map({ photos[Int($0)] }) else { return false }
        return !leader.isSettled && (leader.isInFlight || planner.wants(Int(leader.index)))
    }

    /// Puts a photo in the queue or takes it out, as `isReady` says. A leader's followers are
    /// looked at again too: a leader that settles, stops running or leaves view lets them run.
    package func refreshQueue(_ index: UInt32) {
        refreshMembership(index)
        if let followers = followersByLeader[index] {
            for follower in followers { refreshMembership(follower) }
        }
    }

    private func refreshMembership(_ index: UInt32) {
        if isReady(photos[Int(index)]) {
            queue.insert(Int(index))
        } else {
            queue.remove(Int(index))
        }
    }

    /// Fills the queue from the photos' states: O(photos), for a job made or restored, never
    /// on a viewport change.
    package func rebuildQueue() {
        queue.removeAll()
        for index in photos.indices where isReady(photos[index]) { queue.insert(index) }
    }

    /// The next queued photo, in viewport order, that `canRun` accepts, removed from the queue,
    /// looking at no more than `window` photos. Photos it refuses stay queued in place.
    package func takeNext(window: Int = .max, where canRun: (PhotoRecord) -> Bool) -> PhotoRecord? {
        var walk = queue.walk()
        var looked = 0
        while looked < window, let index = queue.next(&walk) {
            let candidate = photos[index]
            // A follower whose leader started again or came back into view waits for it again,
            // out of the queue until the leader changes.
            guard isReady(candidate) else {
                queue.remove(index)
                continue
            }
            if canRun(candidate) {
                queue.remove(index)
                return candidate
            }
            looked += 1
        }
        // Behind every photo that never hurt anyone: the suspects.
        for index in readySuspects where canRun(photos[Int(index)]) { return photos[Int(index)] }
        return nil
    }

    /// The photos still queued that the viewport wants, for capability checks.
    package var pendingPhotos: [PhotoRecord] {
        queue.ordered().map { photos[$0] }.filter(isReady) + readySuspects.map { photos[Int($0)] }
    }

    /// Gives photo `index` to `worker`: in flight there at the band the viewport gives it, one
    /// attempt more. Its graph is `graph(of:)`, or encoded by `assign(_:to:encodingInto:)`.
    package func take(_ index: UInt32, for worker: WorkerNumber) -> AssignedGraph {
        let plan = planner
        let band = plan.band(of: Int(index))
        setWorker(index, worker, band: band)
        photos[Int(index)].attempts += 1
        if photos[Int(index)].state == .cancelled { setState(index, .new) }
        return AssignedGraph(index: index, band: band.proto, rank: Int64(plan.rank(of: Int(index))), epoch: epoch, attempt: photos[Int(index)].attempts)
    }

    /// The graph of a photo taken for a worker.
    package func graph(of taken: AssignedGraph) -> Photocluster_V1_PhotoGraph {
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = id
        graph.photoIndex = taken.index
        graph.name = name(of: taken.index)
        graph.url = url(of: taken.index)
        graph.filters = filters(of: photos[Int(taken.index)])
        graph.format = format
        graph.quality = quality
        graph.fastDct = fastDCT
        graph.image = image
        graph.band = taken.band
        graph.rank = taken.rank
        graph.epoch = taken.epoch
        graph.attempt = taken.attempt
        if let place {
            // The worker stores the output itself, under the photo's name and its copies'.
            graph.outputPlace = place.proto
            graph.outputStems = ([taken.index] + followers(of: taken.index)).map { stem(of: $0) }
        }
        return graph
    }

    /// Puts an in-flight photo back in the queue, at its place in viewport order (its worker was
    /// lost or gave it back).
    package func requeue(_ index: UInt32) {
        guard !photos[Int(index)].isSettled else { return }
        requeues += 1
        setWorker(index, .none)
    }

    /// An assignment that never left: the photo is back in the queue as if it had not been taken.
    package func unassign(_ index: UInt32) {
        setWorker(index, .none)
    }

    package func scheduleRetry(_ index: UInt32, after delay: TimeInterval, now: MonotonicInstant) {
        retries += 1
        delayed.append((now.adding(seconds: delay), index))
        delayedIndices.insert(index)
        setWorker(index, .none)
    }

    /// Moves retries whose back-off has passed back into the queue.
    package func releaseDueRetries(now: MonotonicInstant) {
        let due = delayed.filter { $0.due <= now }
        guard !due.isEmpty else { return }
        delayed.removeAll { $0.due <= now }
        for entry in due {
            delayedIndices.remove(entry.index)
            refreshQueue(entry.index)
        }
    }
}

extension PriorityBand {
    package var proto: Photocluster_V1_PriorityBand {
        switch self {
        case .visible: return .visible
        case .prefetch: return .prefetch
        case .background: return .background
        }
    }
}
