import CPhotoClusterPluginABI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The plugin's table, built on first use (Swift globals initialise once, thread-safely) and
/// never freed: the host keeps pointers into it for as long as the library is loaded, which is
/// the life of the process.
private let table = PluginTable()

@_cdecl("photocluster_plugin_entry")
public func photoclusterPluginEntry() -> UnsafePointer<pc_plugin> {
    table.plugin
}

/// Only pointers to memory written once, before `table` is published, and never changed or
/// freed afterwards; reading it from any thread is safe.
private struct PluginTable: @unchecked Sendable {
    let plugin: UnsafePointer<pc_plugin>

    init() {
        let mirror = pc_param_schema(
            key: permanent("mirror"), kind: PC_PARAM_BOOL, min: 0, max: 1, default_value: 0,
            summary: permanent("1 also flips the photo left to right")
        )
        let channelSwap = pc_filter_def(
            name: permanent("channel-swap"), version: permanent("1"),
            summary: permanent("swaps the red and blue channels into a new image"),
            params: permanent([mirror]), param_count: 1, apply: channelSwapFilter
        )
        plugin = permanent([
            pc_plugin(
                abi_version: UInt32(PC_PLUGIN_ABI_VERSION), plugin_name: permanent("example-swift"),
                filters: permanent([channelSwap]), filter_count: 1
            )
        ])
    }
}

/// A C string that is never freed.
private func permanent(_ text: String) -> UnsafePointer<CChar> {
    UnsafePointer(strdup(text)!)
}

/// A C array that is never freed.
private func permanent<T>(_ values: [T]) -> UnsafePointer<T> {
    let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: values.count)
    _ = buffer.initialize(fromContentsOf: values)
    return UnsafePointer(buffer.baseAddress!)
}
