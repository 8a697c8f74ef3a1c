# PhotoCluster: `make demo` runs an embedded cluster on the sample photos; `make test` runs every test.
SWIFT ?= swift
RELEASE_CLUSTER := .build/release/cluster

.PHONY: demo test test-tools deps build release image proto-check openapi-check bench fuzz clean

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build --product cluster

release: deps
	$(SWIFT) build -c release --product cluster

# The container image photocluster:VERSION (and :latest) from deploy/Containerfile: compiled in the
# Swift image where a registry answers, else from this host's release build on a Debian base made
# here with mmdebstrap (scripts/build-image says which and why).
image:
	@SWIFT=$(SWIFT) scripts/build-image

# The demo has two deliberately misspelled photos, so `cluster demo` exits 1 by design.
demo: release
	@rm -rf out
	@$(RELEASE_CLUSTER) demo || [ $$? -eq 1 ]

proto-check: deps
	proto/generate --check

# The HTTP API's server code and served document, generated from openapi/openapi.yaml.
openapi-check: deps
	openapi/generate --check

# Prometheus, Chromium and tmux for the observability tests (the Prometheus scrape, the dashboard
# in a browser, `cluster top` in a terminal).
test-tools:
	@scripts/install-test-tools

# Everything is built first: the CLI tests run the `cluster` binary and the plugin tests load
# the example plugins' shared libraries. scripts/run-tests runs the test classes TEST_JOBS (2) at a
# time, each in a process of its own, prints each class's output whole when it ends, stops a suite
# that hangs after TEST_TIMEOUT, and ends a failed run with a summary per failed class (failed
# assertions, the test that was running, the crashed thread).
# Last, scripts/check-containers builds the image and runs deploy/compose.yaml as containers (a
# job with a worker killed, Prometheus's targets, workers handing photos back on SIGTERM); it says
# why and passes where podman cannot be installed or cannot run a container.
TEST_TIMEOUT ?= 30m
test: deps test-tools proto-check openapi-check
	$(SWIFT) build --build-tests
	CLUSTER=.build/debug/cluster scripts/check-deploy
	CLUSTER=.build/debug/cluster scripts/check-http-api
	SWIFT=$(SWIFT) scripts/run-tests $(TEST_TIMEOUT)
	SWIFT=$(SWIFT) scripts/check-containers

# Benchmarks print figures and write them under bench/results/; they never gate `make test`.
bench: deps
	$(SWIFT) build -c release --product cluster
	$(SWIFT) build -c release --product ViewportBenchmark
	$(SWIFT) build -c release --product FilterBenchmark
	$(SWIFT) build -c release --product DispatchBenchmark
	$(SWIFT) build -c release --product ViewportFloodBenchmark
	$(SWIFT) build -c release --product PipelineBenchmark
	$(SWIFT) build -c release --product PluginHostBenchmark
	$(SWIFT) build -c release --product PhotoClusterExamplePluginC
	.build/release/FilterBenchmark
	.build/release/PluginHostBenchmark
	.build/release/ViewportBenchmark --workers 4 --name viewport
	.build/release/ViewportBenchmark --workers 16 --name viewport-16
	.build/release/ViewportBenchmark --workers 4 --state --job-photos 100000 --name viewport-100k
	bench/wakeup-floor 10
	.build/release/ViewportFloodBenchmark --cluster $(RELEASE_CLUSTER)
	.build/release/DispatchBenchmark
	.build/release/DispatchBenchmark --photos 100000 --state /tmp
	CLUSTER=$(RELEASE_CLUSTER) bench/takeover 3 5
	.build/release/cluster simulate --seeds 10000
	bench/stage-priority 3
	bench/memory-budget .build/release/cluster
	bench/worker-steady-state .build/release/cluster
	BENCH_BIN=.build/release bench/run

# libFuzzer targets for every decoder of bytes from the network; FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 30
fuzz: deps
	scripts/fuzz $(FUZZ_SECONDS)

clean:
	rm -rf .build .build-* out
