// swift-tools-version:6.0
// libFuzzer targets for every decoder of bytes from the network. Build and run them with
// `scripts/fuzz` from the repository root; see Fuzz/README.md.
import PackageDescription

// SwiftPM names a path dependency after its directory, so find the parent package's name from
// where this manifest lives rather than assuming the checkout is called "PhotoCluster".
let parentIdentity: String = {
    let parts = Context.packageDirectory.split(separator: "/")
    return parts.count >= 2 ? String(parts[parts.count - 2]) : "PhotoCluster"
}()

let fuzzable = Target.Dependency.product(name: "PhotoClusterFuzzable", package: parentIdentity)
let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "PhotoClusterFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        // Already a dependency of the parent; named here so the targets may import it.
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        .executableTarget(
            name: "FuzzFrames",
            dependencies: [fuzzable, .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "FuzzManifest", dependencies: [fuzzable], swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzImage", dependencies: [fuzzable], swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzMetadata", dependencies: [fuzzable], swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzFilterSpec", dependencies: [fuzzable], swiftSettings: swiftSettings),
    ]
)
