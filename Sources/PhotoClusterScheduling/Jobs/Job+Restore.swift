import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What the journal keeps of a job, and the job made from it again: the one way a restarted
/// coordinator (`Journal.loadJobs`) and the simulator's (`SimulationRun+Restart`) rebuild a job.
package struct JournaledJob {
    package var id: String
    package var submit: Photocluster_V1_SubmitJob
    package var outputDirectory: URL
    package var createdAt: Date
    package var phase: Photocluster_V1_JobPhase
    package var cancelledWhole = false
    package var requeues: UInt32 = 0
    package var retries: UInt32 = 0
    /// Visible start and end and prefetch; nil for an older journal's job (everything visible).
    package var viewport: (start: Int, end: Int, prefetch: Int)?
    package var epoch: UInt64 = 1
    package var suspendedByClient = false
    package var owner: String?
    /// Settled photos by index, as they settled.
    package var photos: [Int: JournaledPhoto] = [:]
    package var losses: [UInt32: WorkerLosses] = [:]

    package init(id: String, submit: Photocluster_V1_SubmitJob, outputDirectory: URL, createdAt: Date, phase: Photocluster_V1_JobPhase) {
        self.id = id
        self.submit = submit
        self.outputDirectory = outputDirectory
        self.createdAt = createdAt
        self.phase = phase
    }

    /// The state `Journal.recordJobState` keeps of `job`.
    package mutating func noteState(of job: Job) {
        phase = job.phase
        cancelledWhole = job.cancelledWhole
        requeues = job.requeues
        retries = job.retries
        viewport = (job.viewport.visible.lowerBound, job.viewport.visible.upperBound, job.viewport.prefetch)
        epoch = job.epoch
        suspendedByClient = job.suspendedByClient
    }
}

/// A settled photo as the journal keeps it.
package struct JournaledPhoto {
    package var state: PhotoState
    package var attempts: UInt32
    package var stage: String
    package var reason: String
    package var outputPath: String
    package var width: UInt32
    package var height: UInt32
    package var settledSequence: UInt32 = 0

    package init(_ photo: PhotoRecord, of job: Job) {
        state = photo.state
        attempts = photo.attempts
        stage = photo.failedStage
        reason = photo.reason
        outputPath = job.outputPath(of: photo)
        width = photo.width
        height = photo.height
        settledSequence = job.settledSequence(of: photo.index)
    }

    package init(state: PhotoState, attempts: UInt32, stage: String, reason: String, outputPath: String, width: UInt32, height: UInt32) {
        self.state = state
        self.attempts = attempts
        self.stage = stage
        self.reason = reason
        self.outputPath = outputPath
        self.width = width
        self.height = height
    }
}

extension Job {
    /// The job as the journal left it: settled photos keep their outcome, the rest wait to run
    /// again; an unfinished job is in progress. `now`: when it is restored.
    package static func restore(_ journaled: JournaledJob, place: OutputPlace?, now: Date) -> Job {
        let job = Job(id: journaled.id, submit: journaled.submit, outputDirectory: journaled.outputDirectory, place: place,
                      owner: journaled.owner, now: journaled.createdAt)
        job.cancelledWhole = journaled.cancelledWhole
        job.requeues = journaled.requeues
        job.retries = journaled.retries
        // One past the journal's: a coordinator sends a change's control messages before it
        // journals the change, so one stopped or fenced between the two may have sent workers the
        // next epoch (never more: it acts no more once a journal write fails). Workers ignore
        // control and graphs older than the newest epoch they saw.
        job.epoch = max(1, journaled.epoch) + 1
        job.suspendedByClient = journaled.suspendedByClient
        if let viewport = journaled.viewport, job.total > 0 {
            let last = job.total - 1
            let start = min(viewport.start, last)
            job.viewport = Viewport(visible: start...max(start, min(viewport.end, last)), prefetch: viewport.prefetch)
        }
        for (index, photo) in journaled.photos where index < job.total {
            job.setState(UInt32(index), photo.state)
            job.photos[index].attempts = photo.attempts
            job.photos[index].failedStage = photo.stage
            job.photos[index].reason = photo.reason
            // Where it was written is where the job's stem and format put it.
            let path = photo.outputPath
            job.photos[index].outputFormat = path.hasSuffix(".png") ? .png : path.hasSuffix(".webp") ? .webp : path.hasSuffix(".avif") ? .avif : .jpeg
            job.photos[index].width = photo.width
            job.photos[index].height = photo.height
            job.setSettledSequence(photo.settledSequence, of: UInt32(index))
        }
        for (index, losses) in journaled.losses where Int(index) < job.total { job.workerLosses[index] = losses }
        let phase = journaled.phase
        job.enter(phase == .didFinish || phase == .cancelled ? phase : .inProgress, at: now)
        job.rebuildQueue()
        return job
    }
}
