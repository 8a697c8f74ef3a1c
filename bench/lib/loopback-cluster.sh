# Sourced by the benchmarks that run a coordinator and one worker over TCP on loopback, with the
# sample photos served beside them over HTTP:
#
#   cd "$(dirname "$0")/.." && . bench/lib/loopback-cluster.sh
#   loopback_setup NAME "${1:-}"          # CLUSTER, work, port, photos copied to $work/photos
#   serve_photos                          # $work/photos on port + 3
#   start_coordinator [ARGS...]           # clients on port + 1; $coordinator is its pid
#   start_worker ID [ARGS...]             # metrics on port + 2; waits until it joined; $worker
#   job_manifest JOB COPIES > FILE        # a job of the photos, under URLs new to job JOB
#
# Everything started is killed, and $work removed, when the script exits. A script that defines
# `launch_under ROLE COMMAND...` runs the coordinator and the worker through it (ROLE is
# `coordinator` or `worker`), to put them under a profiler: it should `exec` the profiler.

# NAME names the benchmark in its errors; CLUSTER defaults to the release build, else the debug one.
loopback_setup() {
    BENCH_NAME=$1
    CLUSTER=${2:-}
    if [ -z "$CLUSTER" ]; then
        if [ -x .build/release/cluster ]; then CLUSTER=.build/release/cluster; else CLUSTER=.build/debug/cluster; fi
    fi
    [ -x "$CLUSTER" ] || bench_fail "$CLUSTER is not an executable (swift build -c release --product cluster)"
    work=$(mktemp -d "/tmp/$BENCH_NAME.XXXXXX")
    port=$((20000 + RANDOM % 10000))
    pids=()
    trap loopback_cleanup EXIT
    trap 'exit 130' INT TERM
    local photos=/work/shared/photos
    [ -d "$photos" ] || photos=samples/photos
    mkdir -p "$work/photos"
    cp "$photos"/*.jpg "$photos"/*.png "$work/photos/" 2>/dev/null || true
}

loopback_cleanup() {
    kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}

bench_fail() {
    echo "bench/$BENCH_NAME: $*" >&2
    exit 1
}

# Runs COMMAND in place of the background shell it is called in (so `$!` is the process itself),
# through the script's `launch_under` where it has one (which should `exec` too).
launch() {
    local role=$1
    shift
    if declare -F launch_under >/dev/null; then launch_under "$role" "$@"; else exec "$@"; fi
}

# A job's manifest: the photos in $work/photos COPIES times, each copy under URLs of its own that
# name JOB too (so every job downloads anew), each photo of each copy with one of four chains in
# turn (a 512-px thumbnail; sepia; resize to 1600; blur then grayscale).
job_manifest() {  # JOB COPIES
    python3 - "$work/photos" "$2" "$((port + 3))" "$1" <<'PY'
import json, os, sys
folder, copies, port, job = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
chains = [["thumbnail:width=512,height=512"], ["sepia"], ["resize:width=1600,height=1600"], ["blur:sigma=2", "grayscale"]]
photos = sorted(f for f in os.listdir(folder) if f.endswith((".jpg", ".png")))
print(json.dumps([{"name": f"{copy}-{name}", "url": f"http://127.0.0.1:{port}/{name}?job={job}&copy={copy}",
                   "filters": chains[(index + copy) % len(chains)]}
                  for copy in range(copies) for index, name in enumerate(photos)]))
PY
}

serve_photos() {
    python3 -m http.server "$((port + 3))" --bind 127.0.0.1 --directory "$work/photos" >/dev/null 2>&1 &
    pids+=($!)
}

start_coordinator() {
    launch coordinator "$CLUSTER" coordinator --insecure --bind "tcp://127.0.0.1:$port" --client-bind "tcp://127.0.0.1:$((port + 1))" \
        --output-root "$work" --metrics-bind off "$@" >"$work/coordinator.log" 2>&1 &
    coordinator=$!
    pids+=("$coordinator")
}

start_worker() {
    local id=$1
    shift
    launch worker "$CLUSTER" worker --insecure --coordinator "tcp://127.0.0.1:$port" --id "$id" --allow-loopback \
        --metrics-bind "127.0.0.1:$((port + 2))" "$@" >"$work/worker.log" 2>&1 &
    worker=$!
    pids+=("$worker")
    for _ in $(seq 100); do grep -q "worker $id joined" "$work/coordinator.log" && return; sleep 0.2; done
    cat "$work/worker.log" >&2
    bench_fail "the worker did not join (its log is above)"
}
