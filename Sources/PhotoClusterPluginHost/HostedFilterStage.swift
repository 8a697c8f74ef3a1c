import Foundation
import PhotoClusterCore

/// A plugin's filter as a worker sees it: the filter runs in a plugin host (a child process),
/// never in the worker. Its descriptor is the one the host reported when it loaded the plugin.
public struct HostedFilterStage: FilterStage {
    public let descriptor: FilterDescriptor
    public let pool: PluginHostPool

    init(descriptor: FilterDescriptor, pool: PluginHostPool) {
        self.descriptor = descriptor
        self.pool = pool
    }

    /// The plugin's file name (`poison.so`), as failures and metrics name it.
    public var plugin: String { URL(fileURLWithPath: descriptor.origin).lastPathComponent }

    /// This filter with its parameters, as one step of a chain sent to the host.
    public func call(_ parameters: FilterParameters) -> HostedCall {
        HostedCall(filter: descriptor.name, plugin: plugin, values: descriptor.parameters.map { parameters.values[$0.key] ?? $0.defaultValue })
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        try pool.run([call(parameters)], on: image, mayOverwrite: true, limit: StageTimeLimit.defaultSeconds, isCancelled: isCancelled)
    }

    /// The host works on its own copy anyway: only the result is new memory.
    public func apply(toCopyOf image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        try pool.run([call(parameters)], on: image, mayOverwrite: false, limit: StageTimeLimit.defaultSeconds, isCancelled: isCancelled)
    }
}

/// One filter of a chain a plugin host runs, with its parameter values in schema order.
public struct HostedCall: Sendable {
    public let filter: String
    public let plugin: String
    public let values: [Double]
}
