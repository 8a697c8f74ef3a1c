import Foundation
import PhotoClusterTestSupport
import XCTest

/// The example plugins `swift build` puts next to the test bundle, copied into temporary
/// plugin directories.
enum BuiltPlugins {
    static let cProduct = "PhotoClusterExamplePluginC"
    static let swiftProduct = "PhotoClusterExamplePluginSwift"

    /// The build products directory, e.g. `.build/x86_64-unknown-linux-gnu/debug/`: the one
    /// that holds the test bundle.
    static var productsDirectory: URL {
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return (Bundle.main.executableURL ?? Bundle.main.bundleURL).deletingLastPathComponent()
    }

    /// The built library of `product`; fails the test when it has not been built.
    static func library(_ product: String) throws -> URL {
        #if canImport(Darwin)
        let file = "lib\(product).dylib"
        #else
        let file = "lib\(product).so"
        #endif
        let url = productsDirectory.appendingPathComponent(file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SetupFailure("\(url.path) does not exist: run `swift build` (all products) before `swift test`")
        }
        return url
    }

    /// Copies `products` into `directory` as `lib<product>.so`; returns the copies' paths.
    @discardableResult
    static func copy(_ products: [String] = [cProduct, swiftProduct], into directory: URL) throws -> [String: URL] {
        var copies: [String: URL] = [:]
        for product in products {
            let copy = directory.appendingPathComponent("lib\(product).so")
            try FileManager.default.copyItem(at: try library(product), to: copy)
            copies[product] = copy
        }
        return copies
    }
}

/// Small test plugins compiled from C source at test time with the system C compiler.
enum TestPlugins {
    /// A no-op filter and an empty schema for test tables to point at.
    static let prelude = """
        #include "photocluster_plugin.h"
        static int keep(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                        void *context, char *error, size_t error_size) { return PC_OK; }

        """

    /// Compiles `prelude + source` into `directory/<name>.so`.
    @discardableResult
    static func build(_ name: String, _ source: String, into directory: URL) throws -> URL {
        guard CPluginCompiler.compiler != nil else { throw XCTSkip("no C compiler (cc) on PATH: the test plugins cannot be built") }
        do {
            return try CPluginCompiler.build(name, prelude + source, into: directory)
        } catch let failure as CPluginCompiler.Failure {
            throw SetupFailure(failure.description)
        }
    }
}

/// A test that cannot be set up; thrown, it fails the test with this message.
struct SetupFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
