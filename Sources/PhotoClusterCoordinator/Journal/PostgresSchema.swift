/// The journal's tables in PostgreSQL, the same columns as SQLite's (which `Journal` reads with
/// one set of SQL), and the leadership lease with its fence. Made in one transaction under an
/// advisory lock, so coordinators that start together on an empty database do not race.
enum PostgresSchema {
    /// The advisory lock key of schema changes ("PCJ" in ASCII).
    static let lockKey = 0x50_434A

    static func create(on database: PostgresDatabase) throws {
        try database.simple(
            """
            BEGIN;
            SELECT pg_advisory_xact_lock(\(lockKey));
            CREATE TABLE IF NOT EXISTS jobs (
                id TEXT PRIMARY KEY, submit BYTEA NOT NULL, output_dir TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL,
                phase BIGINT NOT NULL, cancelled_whole BIGINT NOT NULL DEFAULT 0,
                requeues BIGINT NOT NULL DEFAULT 0, retries BIGINT NOT NULL DEFAULT 0,
                visible_start BIGINT, visible_end BIGINT, prefetch BIGINT, seq BIGINT NOT NULL,
                finished_seq BIGINT, epoch BIGINT NOT NULL DEFAULT 1, suspended_by_client BIGINT NOT NULL DEFAULT 0, owner TEXT);
            CREATE TABLE IF NOT EXISTS photos (
                job_id TEXT NOT NULL, idx BIGINT NOT NULL, state TEXT NOT NULL, attempts BIGINT NOT NULL,
                stage TEXT NOT NULL, reason TEXT NOT NULL, output_path TEXT NOT NULL, width BIGINT NOT NULL, height BIGINT NOT NULL,
                settled_seq BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (job_id, idx));
            CREATE TABLE IF NOT EXISTS submits (job_id TEXT PRIMARY KEY, submit BYTEA NOT NULL);
            CREATE TABLE IF NOT EXISTS worker_losses (
                job_id TEXT NOT NULL, idx BIGINT NOT NULL, losses BIGINT NOT NULL, workers TEXT NOT NULL,
                PRIMARY KEY (job_id, idx));
            \(leadership)
            COMMIT
            """)
    }

    /// One row (id 1): who leads, with which token, until when (the server's clock); made
    /// lapsed, with token 0, so every acquire is an update. The fence locks the row `FOR KEY
    /// SHARE` for the rest of the writer's transaction and a takeover locks it `FOR UPDATE`
    /// (`LeaseStore.acquire`), so the two are serialised: a write either commits before the token
    /// changes or sees the new token and is refused. A renew is a plain update of `expires_at`
    /// (`FOR NO KEY UPDATE`), which a key share does not block: the leader's own open batch must
    /// not hold up its renew, or a long turn would cost it the lease.
    static let leadership = """
        CREATE TABLE IF NOT EXISTS leadership (
            id BIGINT PRIMARY KEY CHECK (id = 1), token BIGINT NOT NULL, holder TEXT NOT NULL, endpoint TEXT NOT NULL,
            since TIMESTAMPTZ NOT NULL, expires_at TIMESTAMPTZ NOT NULL);
        INSERT INTO leadership (id, token, holder, endpoint, since, expires_at)
            VALUES (1, 0, '', '', '-infinity', '-infinity') ON CONFLICT (id) DO NOTHING;
        CREATE OR REPLACE FUNCTION photocluster_fence(mine BIGINT) RETURNS void LANGUAGE plpgsql AS $fence$
        DECLARE
            current_token BIGINT;
        BEGIN
            SELECT token INTO current_token FROM leadership WHERE id = 1 FOR KEY SHARE;
            IF current_token IS DISTINCT FROM mine THEN
                RAISE EXCEPTION 'fenced: the lease is held with token %, not %', current_token, mine USING ERRCODE = '\(PostgresDatabase.fencedState)';
            END IF;
        END
        $fence$;
        """
}
