import Foundation

/// Paths inside the repository, for tests that use the bundled samples or the built binary.
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static var samplePhotos: URL { root.appendingPathComponent("samples/photos") }

    /// The sample photos' file names (JPEG and PNG), sorted.
    public static var samplePhotoFiles: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: samplePhotos.path)) ?? []
        return names.filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
    }

    /// The `cluster` binary `make test` builds before running the tests (override with CLUSTER_BINARY).
    public static var clusterBinary: URL {
        if let path = ProcessInfo.processInfo.environment["CLUSTER_BINARY"] { return URL(fileURLWithPath: path) }
        return root.appendingPathComponent(".build/debug/cluster")
    }

    /// A fresh temporary directory, removed by the caller.
    public static func temporaryDirectory(_ label: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("photocluster-\(label)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
