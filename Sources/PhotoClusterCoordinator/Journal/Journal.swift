import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterScheduling
import PhotoClusterStorage

/// The coordinator's durable record: every job (with the submit that made it) and each photo's
/// state, reason and output path, in a SQLite file under `--state DIR` or in a PostgreSQL
/// database (`--state postgres://…`, where coordinators share it). A job is written before
/// it is accepted and a photo's outcome after its file is in place and before anyone is told,
/// so after a restart no photo is lost and none is reported done without its file.
///
/// Used only from the coordinator's loop thread.
final class Journal {
    let database: any JournalDatabase

    /// The journal in a PostgreSQL database, its tables made if missing unless `makingSchema` is
    /// false (a leader's: its standby made them). Give it a database whose `fencingToken` is set
    /// where coordinators take turns leading.
    init(postgres database: PostgresDatabase, makingSchema: Bool = true) throws {
        if makingSchema { try PostgresSchema.create(on: database) }
        self.database = database
    }

    init(directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SQLiteDatabase.Failure(path: directory.path, message: "cannot create the state directory: \((error as NSError).localizedDescription)")
        }
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("journal.sqlite").path)
        self.database = database
        try database.execute("""
            CREATE TABLE IF NOT EXISTS jobs (
                id TEXT PRIMARY KEY, submit BLOB NOT NULL, output_dir TEXT NOT NULL, created_at REAL NOT NULL,
                phase INTEGER NOT NULL, cancelled_whole INTEGER NOT NULL DEFAULT 0,
                requeues INTEGER NOT NULL DEFAULT 0, retries INTEGER NOT NULL DEFAULT 0,
                visible_start INTEGER, visible_end INTEGER, prefetch INTEGER, seq INTEGER NOT NULL,
                finished_seq INTEGER, epoch INTEGER NOT NULL DEFAULT 1, suspended_by_client INTEGER NOT NULL DEFAULT 0, owner TEXT)
            """)
        try Self.addColumnsIfMissing(database)
        try database.execute("""
            CREATE TABLE IF NOT EXISTS photos (
                job_id TEXT NOT NULL, idx INTEGER NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL,
                stage TEXT NOT NULL, reason TEXT NOT NULL, output_path TEXT NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
                settled_seq INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (job_id, idx))
            """)
        try Self.addPhotoColumnsIfMissing(database)
        // The submit message of each job, apart from its row in `jobs`: SQLite writes a row whole
        // on every update, and a job's row changes with every viewport change and every batch of
        // settled photos, while the submit of a 100,000-photo job is megabytes. (Journals from
        // before keep it in `jobs.submit`, which new jobs leave empty.)
        try database.execute("CREATE TABLE IF NOT EXISTS submits (job_id TEXT PRIMARY KEY, submit BLOB NOT NULL)")
        // Photos on workers that died, so a restarted coordinator keeps counting towards
        // --max-worker-losses (a photo that crashes workers would otherwise get a fresh start).
        try database.execute("""
            CREATE TABLE IF NOT EXISTS worker_losses (
                job_id TEXT NOT NULL, idx INTEGER NOT NULL, losses INTEGER NOT NULL, workers TEXT NOT NULL,
                PRIMARY KEY (job_id, idx))
            """)
    }

    /// Records a photo's losses (nil: it has none left).
    func recordWorkerLosses(_ losses: WorkerLosses?, photo index: UInt32, of jobID: String) throws {
        if let losses {
            try database.execute(
                """
                INSERT INTO worker_losses (job_id, idx, losses, workers) VALUES (?, ?, ?, ?)
                ON CONFLICT (job_id, idx) DO UPDATE SET losses = excluded.losses, workers = excluded.workers
                """,
                [.text(jobID), .int(Int64(index)), .int(Int64(losses.count)), .text(losses.workers.joined(separator: "\n"))])
        } else {
            try database.execute("DELETE FROM worker_losses WHERE job_id = ? AND idx = ?", [.text(jobID), .int(Int64(index))])
        }
    }

    /// Records a new job. The client is told "accepted" once this returns, so it commits with a
    /// full flush: an accepted job survives a power cut. Photo outcomes stay cheap (`normal`):
    /// one lost in a power cut only makes its photo run again.
    func recordJob(_ job: Job, submit: Photocluster_V1_SubmitJob) throws {
        let submitBytes = try submit.serializedData()
        try database.transaction(synchronous: .full) {
            let seq = try database.query("SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs").first?.first?.int ?? 1
            try database.execute(
                "INSERT INTO jobs (id, submit, output_dir, created_at, phase, seq, owner) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [.text(job.id), .blob(Data()), .text(job.outputLocation), .double(job.createdAt.timeIntervalSince1970),
                 .int(Int64(job.phase.rawValue)), .int(seq), job.owner.map { .text($0) } ?? .null])
            try database.execute("INSERT INTO submits (job_id, submit) VALUES (?, ?)", [.text(job.id), .blob(submitBytes)])
        }
    }

    /// The job's control epoch is kept so a restarted coordinator goes on from it: workers that
    /// kept running ignore control and graphs older than the newest epoch they saw.
    func recordJobState(_ job: Job) throws {
        try database.execute(
            """
            UPDATE jobs SET phase = ?, cancelled_whole = ?, requeues = ?, retries = ?, visible_start = ?, visible_end = ?, prefetch = ?,
                epoch = ?, suspended_by_client = ? WHERE id = ?
            """,
            [.int(Int64(job.phase.rawValue)), .int(job.cancelledWhole ? 1 : 0), .int(Int64(job.requeues)), .int(Int64(job.retries)),
             .int(Int64(job.viewport.visible.lowerBound)), .int(Int64(job.viewport.visible.upperBound)), .int(Int64(job.viewport.prefetch)),
             .int(Int64(job.epoch)), .int(job.suspendedByClient ? 1 : 0), .text(job.id)])
    }

    /// An older journal gets the columns added since. Its finished jobs keep a NULL finish order
    /// and count as finished before every later one; its jobs get epoch 1, not suspended, and
    /// no owner (only admins may act on them when the coordinator uses CURVE).
    private static func addColumnsIfMissing(_ database: SQLiteDatabase) throws {
        let columns = try database.query("PRAGMA table_info(jobs)").map { $0[1].text }
        if !columns.contains("finished_seq") { try database.execute("ALTER TABLE jobs ADD COLUMN finished_seq INTEGER") }
        if !columns.contains("epoch") { try database.execute("ALTER TABLE jobs ADD COLUMN epoch INTEGER NOT NULL DEFAULT 1") }
        if !columns.contains("suspended_by_client") {
            try database.execute("ALTER TABLE jobs ADD COLUMN suspended_by_client INTEGER NOT NULL DEFAULT 0")
        }
        if !columns.contains("owner") { try database.execute("ALTER TABLE jobs ADD COLUMN owner TEXT") }
    }

    /// An older journal's settled photos get place 0: a client following the job over HTTP
    /// hears of them when it starts, not when it resumes.
    private static func addPhotoColumnsIfMissing(_ database: SQLiteDatabase) throws {
        let columns = try database.query("PRAGMA table_info(photos)").map { $0[1].text }
        if !columns.contains("settled_seq") { try database.execute("ALTER TABLE photos ADD COLUMN settled_seq INTEGER NOT NULL DEFAULT 0") }
    }

    /// Records a job's final state and its place in the order jobs finished (which finished
    /// jobs a restarted coordinator keeps).
    func recordJobFinished(_ job: Job) throws {
        try database.transaction {
            try recordJobState(job)
            try database.execute(
                "UPDATE jobs SET finished_seq = (SELECT COALESCE(MAX(finished_seq), 0) + 1 FROM jobs) WHERE id = ? AND finished_seq IS NULL",
                [.text(job.id)])
        }
    }

    /// Every job's id, those that finished first first: jobs without a recorded finish (older
    /// journals, and open jobs) by submission, ahead of the rest.
    func idsInFinishOrder() throws -> [String] {
        try database.query("SELECT id FROM jobs ORDER BY finished_seq IS NOT NULL, finished_seq, seq").map { $0[0].text }
    }

    /// Records photos that settled together (done, failed or cancelled for good) in one transaction.
    func recordPhotos(_ photos: [PhotoRecord], of job: Job) throws {
        guard !photos.isEmpty else { return }
        try database.transaction {
            for photo in photos {
                try database.execute(
                    Self.insertPhoto,
                    [.text(job.id), .int(Int64(photo.index)), .text(photo.state.rawValue), .int(Int64(photo.attempts)), .text(photo.failedStage),
                     .text(photo.reason), .text(job.outputPath(of: photo)), .int(Int64(photo.width)), .int(Int64(photo.height)),
                     .int(Int64(job.settledSequence(of: photo.index)))])
            }
            try recordJobState(job)
        }
    }

    /// A photo's outcome, replacing the one before (a photo that ran again).
    private static let insertPhoto = """
        INSERT INTO photos (job_id, idx, state, attempts, stage, reason, output_path, width, height, settled_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (job_id, idx) DO UPDATE SET state = excluded.state, attempts = excluded.attempts, stage = excluded.stage,
            reason = excluded.reason, output_path = excluded.output_path, width = excluded.width, height = excluded.height,
            settled_seq = excluded.settled_seq
        """

    /// Removes a job and its photos (a finished job the coordinator no longer keeps).
    func forgetJob(_ id: String) throws {
        try database.transaction {
            try database.execute("DELETE FROM photos WHERE job_id = ?", [.text(id)])
            try database.execute("DELETE FROM worker_losses WHERE job_id = ?", [.text(id)])
            try database.execute("DELETE FROM submits WHERE job_id = ?", [.text(id)])
            try database.execute("DELETE FROM jobs WHERE id = ?", [.text(id)])
        }
    }

    /// Every job, oldest first, as it stood: settled photos keep their outcome (a done photo in
    /// the coordinator's directory only if its file is still there; one a worker stored in the
    /// job's place as recorded); everything else waits to run again.
    func loadJobs() throws -> [Job] {
        let rows = try database.query(
            """
            SELECT id, COALESCE(submits.submit, jobs.submit), output_dir, created_at, phase, cancelled_whole, requeues, retries, visible_start,
                visible_end, prefetch, epoch, suspended_by_client, owner
            FROM jobs LEFT JOIN submits ON submits.job_id = jobs.id ORDER BY seq
            """)
        return try rows.map { row in
            let submit = try Photocluster_V1_SubmitJob(serializedBytes: row[1].blob)
            // A job whose workers store its outputs names its place in the submit (the column holds it for people).
            let place = try OutputPlace(submit.outputPlace)
            var journaled = JournaledJob(
                id: row[0].text, submit: submit, outputDirectory: URL(fileURLWithPath: place == nil ? row[2].text : "/", isDirectory: true),
                createdAt: Date(timeIntervalSince1970: row[3].double), phase: Photocluster_V1_JobPhase(rawValue: Int(row[4].int)) ?? .inProgress)
            journaled.owner = if case .text(let key) = row[13] { key } else { nil }
            journaled.cancelledWhole = row[5].int != 0
            journaled.requeues = UInt32(row[6].int)
            journaled.retries = UInt32(row[7].int)
            journaled.epoch = UInt64(max(1, row[11].int))
            journaled.suspendedByClient = row[12].int != 0
            if case .int = row[8] { journaled.viewport = (Int(row[8].int), Int(row[9].int), Int(row[10].int)) }
            for photo in try database.query("SELECT idx, state, attempts, stage, reason, output_path, width, height, settled_seq FROM photos WHERE job_id = ?", [.text(journaled.id)]) {
                guard photo[0].int >= 0, let state = PhotoState(rawValue: photo[1].text) else { continue }
                // A done photo in the coordinator's directory counts only if its file is still there.
                if state == .done && place == nil && !FileManager.default.fileExists(atPath: photo[5].text) { continue }
                journaled.photos[Int(photo[0].int)] = JournaledPhoto(
                    state: state, attempts: UInt32(photo[2].int), stage: photo[3].text, reason: photo[4].text, outputPath: photo[5].text,
                    width: UInt32(photo[6].int), height: UInt32(photo[7].int))
                journaled.photos[Int(photo[0].int)]?.settledSequence = UInt32(clamping: photo[8].int)
            }
            for loss in try database.query("SELECT idx, losses, workers FROM worker_losses WHERE job_id = ?", [.text(journaled.id)]) {
                let workers = loss[2].text.split(separator: "\n").map(String.init)
                guard loss[0].int >= 0, loss[1].int >= 0, !workers.isEmpty else { continue }
                journaled.losses[UInt32(loss[0].int)] = WorkerLosses(count: UInt32(loss[1].int), workers: workers)
            }
            return Job.restore(journaled, place: place, now: Date())
        }
    }
}
