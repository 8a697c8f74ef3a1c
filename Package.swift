// swift-tools-version:6.0
import PackageDescription

/// Targets are layered by purity: `PhotoClusterCore` opens no socket and reads no clock (its only
/// I/O: durable output files, cgroup reads for the default concurrency); the C shims and their Swift
/// wrappers sit above it; worker, coordinator and client build on those; `cluster` is on top.
let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v5)]

/// Code generation for CPUs with AVX2 (Haswell, 2013, and later), used by one module only and
/// picked at run time (`KernelSet`). Nothing to add on other architectures.
#if arch(x86_64)
let avx2Settings: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "haswell"])]
#else
let avx2Settings: [SwiftSetting] = []
#endif

/// The pixel loops are optimised in debug builds too: unoptimised SIMD code is tens of times
/// slower than the plain loops, and the tests should run the code that ships.
let kernelSettings: [SwiftSetting] = swiftSettings + [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "PhotoCluster",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cluster", targets: ["ClusterCLI"]),
        .library(name: "PhotoClusterClient", targets: ["PhotoClusterClient"]),
        // The network-facing decoders, for the fuzz targets in Fuzz/ (not a public API).
        .library(name: "PhotoClusterFuzzable", targets: ["PhotoClusterCore", "PhotoClusterProto", "PhotoClusterImaging"]),
        // Example filter plugins, loaded by workers at run time.
        .library(name: "PhotoClusterExamplePluginC", type: .dynamic, targets: ["ExamplePluginC"]),
        .library(name: "PhotoClusterExamplePluginSwift", type: .dynamic, targets: ["ExamplePluginSwift"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
    ],
    targets: [
        // C libraries.
        .systemLibrary(
            name: "CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libpq, for the journal on PostgreSQL (synchronous, like the SQLite journal).
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(
            name: "CCurlShim",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .target(
            name: "CImageCodec",
            linkerSettings: [
                .linkedLibrary("jpeg"), .linkedLibrary("png"), .linkedLibrary("z"), .linkedLibrary("webp"), .linkedLibrary("webpmux"),
                .linkedLibrary("lcms2"), .linkedLibrary("heif"), .linkedLibrary("tiff"), .linkedLibrary("gif"),
                .linkedLibrary("jxl"),
            ]
        ),

        // The versioned C ABI of filter plugins, and the loader that turns plugins into filters.
        .target(name: "CPhotoClusterPluginABI"),
        .target(
            name: "PhotoClusterPlugins",
            dependencies: ["CPhotoClusterPluginABI", "PhotoClusterCore"],
            swiftSettings: swiftSettings
        ),
        // Plugins run in plugin hosts, child processes of the worker: the host's side and the
        // worker's (processes, shared pixel memory, the hosted filters), and the Linux calls
        // Swift cannot make (SCM_RIGHTS, memfd_create, prctl, posix_spawn attributes).
        .target(name: "CPluginHost"),
        .target(
            name: "PhotoClusterPluginHost",
            dependencies: ["CPluginHost", "PhotoClusterPlugins", "PhotoClusterCore", "PhotoClusterProto"],
            swiftSettings: swiftSettings
        ),
        .target(name: "ExamplePluginC", dependencies: ["CPhotoClusterPluginABI"], path: "Plugins/ExamplePluginC"),
        .target(
            name: "ExamplePluginSwift",
            dependencies: ["CPhotoClusterPluginABI"],
            path: "Plugins/ExamplePluginSwift",
            swiftSettings: swiftSettings
        ),

        // The model: manifests, names, filters, pixels; no network. Its only I/O is DurableFile's
        // output writes, UsableCores' cgroup and affinity reads and the threads of
        // BlockingWorkThreads and SerialThread; its only clock read is a stage's time limit.
        .target(name: "PhotoClusterCore", dependencies: ["PhotoClusterKernels", "PhotoClusterKernelsAVX2"], swiftSettings: swiftSettings),
        // The pixel loops, built for the baseline CPU and again for AVX2 (same source, a link).
        .target(name: "PhotoClusterKernels", swiftSettings: kernelSettings),
        .target(name: "PhotoClusterKernelsAVX2", swiftSettings: kernelSettings + avx2Settings),

        // Generated from proto/*.proto by proto/generate.
        .target(
            name: "PhotoClusterProto",
            dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")],
            exclude: ["GENERATED.sha256"],
            swiftSettings: swiftSettings
        ),

        // Prometheus metrics through swift-metrics, one registry per node.
        .target(
            name: "PhotoClusterMetrics",
            dependencies: [
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),

        // Wrappers around the C libraries.
        .target(
            name: "PhotoClusterTransport", dependencies: ["CZeroMQ", "PhotoClusterCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings),
        .target(name: "PhotoClusterImaging", dependencies: ["CImageCodec", "PhotoClusterCore"], swiftSettings: swiftSettings),
        .target(name: "PhotoClusterDownload", dependencies: ["CCurlShim"], swiftSettings: swiftSettings),
        // Outputs where users keep photos: S3 (signed by libcurl) and shared directories.
        .target(
            name: "PhotoClusterStorage",
            dependencies: ["PhotoClusterCore", "PhotoClusterDownload", "PhotoClusterProto", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),

        // The worker's side of the protocol as a state machine, with no socket, engine or clock:
        // the worker's shell and the coordinator's simulator both run it. Also the output place as
        // messages carry it.
        .target(name: "PhotoClusterProtocol", dependencies: ["PhotoClusterCore", "PhotoClusterProto"], swiftSettings: swiftSettings),
        // The coordinator's scheduling as a state machine (`CoordinatorCore`: events in, actions
        // out, no reference to its shell), the jobs it owns and each job's life, and the lease
        // model: no socket, file or clock. `CoordinatorNode` is its shell, and the simulator's
        // `SimulationRun` another.
        .target(
            name: "PhotoClusterScheduling",
            dependencies: ["PhotoClusterCore", "PhotoClusterProto", "PhotoClusterProtocol", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // The seeded simulator (`cluster simulate`): the product's scheduling core and the worker's
        // protocol (`WorkerSession`) run against simulated workers' engines, sockets, a journal,
        // a lease row and clocks. Only what it replaces is simulated; no rule of the product is
        // written again here.
        .target(
            name: "PhotoClusterSimulation",
            dependencies: [
                "PhotoClusterCore", "PhotoClusterProto", "PhotoClusterProtocol", "PhotoClusterScheduling", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Cluster roles.
        .target(
            name: "PhotoClusterWorker",
            dependencies: [
                "PhotoClusterCore", "PhotoClusterProto", "PhotoClusterTransport", "PhotoClusterProtocol",
                "PhotoClusterImaging", "PhotoClusterDownload", "PhotoClusterMetrics", "PhotoClusterPluginHost", "PhotoClusterStorage",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PhotoClusterCoordinator",
            dependencies: [
                "PhotoClusterCore", "PhotoClusterProto", "PhotoClusterTransport", "CSQLite", "CPostgres", "PhotoClusterMetrics", "PhotoClusterStorage",
                "PhotoClusterProtocol", "PhotoClusterScheduling",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PhotoClusterClient",
            dependencies: ["PhotoClusterCore", "PhotoClusterProto", "PhotoClusterTransport"],
            swiftSettings: swiftSettings
        ),

        .target(
            name: "PhotoClusterEmbedded",
            dependencies: ["PhotoClusterCoordinator", "PhotoClusterWorker", "PhotoClusterTransport", "PhotoClusterCore"],
            swiftSettings: swiftSettings
        ),

        // The public HTTP API (/v1), its server code generated from openapi/openapi.yaml
        // (openapi/generate; the generated code is committed and checked for staleness).
        .target(
            name: "PhotoClusterHTTPAPI",
            dependencies: [
                "PhotoClusterCoordinator", "PhotoClusterProto", "PhotoClusterProtocol", "PhotoClusterCore", "PhotoClusterTransport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        // The coordinator's web dashboard and JSON API, and the /metrics endpoint of every node.
        .target(
            name: "PhotoClusterDashboard",
            dependencies: [
                "PhotoClusterCoordinator", "PhotoClusterProto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The pages, stylesheet and scripts, compiled into the binary (`PackageResources`).
            resources: [
                "overview.html", "job.html", "style.css", "api.js", "overview.js", "chart-math.js", "job.js", "viewport-math.js",
                "task-math.js", "task-stream.js",
            ].map { .embedInCode("Web/\($0)") },
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "ClusterCLI",
            dependencies: [
                "PhotoClusterCore", "PhotoClusterClient", "PhotoClusterCoordinator",
                "PhotoClusterWorker", "PhotoClusterEmbedded", "PhotoClusterTransport", "PhotoClusterPlugins", "PhotoClusterPluginHost", "PhotoClusterStorage",
                "PhotoClusterDashboard", "PhotoClusterHTTPAPI", "PhotoClusterScheduling", "PhotoClusterSimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),

        // A small HTTP server whose faults tests choose (delays, trickles, any handler); tests
        // and benchmarks serve photos with it. `cluster` itself serves files with Hummingbird.
        .target(name: "LoopbackHTTP", path: "Tests/LoopbackHTTP", swiftSettings: swiftSettings),
        .target(
            name: "PhotoClusterTestSupport",
            dependencies: ["PhotoClusterCore"],
            path: "Tests/PhotoClusterTestSupport",
            swiftSettings: swiftSettings
        ),
        // Benchmarks print figures; `make bench` runs them in release builds.
        .executableTarget(
            name: "ViewportBenchmark",
            dependencies: ["PhotoClusterClient", "PhotoClusterCore", "PhotoClusterProto", "LoopbackHTTP"],
            path: "Benchmarks/ViewportBenchmark",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "ViewportFloodBenchmark",
            dependencies: ["PhotoClusterClient", "PhotoClusterProto", "PhotoClusterTransport"],
            path: "Benchmarks/ViewportFloodBenchmark",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "DispatchBenchmark",
            dependencies: ["PhotoClusterClient", "PhotoClusterProto", "PhotoClusterTransport"],
            path: "Benchmarks/DispatchBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "PipelineBenchmark",
            dependencies: [
                "PhotoClusterCore", "PhotoClusterImaging", "PhotoClusterDownload", "PhotoClusterWorker", "PhotoClusterProto", "LoopbackHTTP",
            ],
            path: "Benchmarks/PipelineBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "PluginHostBenchmark",
            dependencies: ["PhotoClusterCore", "PhotoClusterPlugins", "PhotoClusterPluginHost"],
            path: "Benchmarks/PluginHostBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FilterBenchmark",
            dependencies: ["PhotoClusterCore"],
            path: "Benchmarks/FilterBenchmark",
            swiftSettings: swiftSettings
        ),

        .testTarget(name: "PhotoClusterCoreTests", dependencies: ["PhotoClusterCore", "PhotoClusterTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PhotoClusterImagingTests",
            dependencies: ["PhotoClusterImaging", "PhotoClusterCore", "PhotoClusterTestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoClusterTransportTests",
            dependencies: ["PhotoClusterTransport", "PhotoClusterCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoClusterPluginsTests",
            dependencies: ["PhotoClusterPlugins", "PhotoClusterCore", "PhotoClusterTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoClusterPluginHostTests",
            dependencies: ["PhotoClusterPluginHost", "PhotoClusterPlugins", "PhotoClusterCore", "PhotoClusterTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoClusterDownloadTests",
            dependencies: ["PhotoClusterDownload", "LoopbackHTTP", "PhotoClusterTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoClusterStorageTests",
            dependencies: [
                "PhotoClusterStorage", "PhotoClusterCore", "PhotoClusterDownload", "PhotoClusterTestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoClusterClusterTests",
            dependencies: [
                "PhotoClusterCore", "PhotoClusterProto", "PhotoClusterTransport", "PhotoClusterWorker",
                "PhotoClusterCoordinator", "PhotoClusterClient", "PhotoClusterImaging", "PhotoClusterEmbedded", "LoopbackHTTP",
                "PhotoClusterPluginHost", "PhotoClusterTestSupport", "PhotoClusterStorage", "PhotoClusterProtocol", "PhotoClusterScheduling",
                "PhotoClusterSimulation",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoClusterHTTPAPITests",
            dependencies: ["PhotoClusterHTTPAPI", "PhotoClusterProto", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ClusterCLITests",
            dependencies: ["PhotoClusterImaging", "PhotoClusterCore", "LoopbackHTTP", "PhotoClusterTestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
