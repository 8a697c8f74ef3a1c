import CPhotoClusterPluginABI
import PhotoClusterCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plugin's filter: each photo goes through the plugin's C function. Sharing one instance
/// across threads relies on the ABI's rule that `apply` is reentrant, and on the loader never
/// unloading the library the function lives in.
struct PluginFilterStage: FilterStage {
    static let errorBufferSize = 1024

    let descriptor: FilterDescriptor
    private let function: pc_filter_fn

    init(definition: PluginTable.Filter, origin: String) {
        var descriptor = definition.descriptor
        descriptor.origin = origin
        self.descriptor = descriptor
        self.function = definition.apply
    }

    func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw FilterFailure(filter: descriptor.name, reason: "a \(image.width)x\(image.height) image is too large for plugins")
        }
        // In schema order; the registry resolved every key, the default covers a caller that did not.
        let values = descriptor.parameters.map { parameters.values[$0.key] ?? $0.defaultValue }
        // The ABI promises plugins values that fit their schema; a caller that skipped the
        // registry's checks is stopped here rather than in C.
        for (parameter, value) in zip(descriptor.parameters, values)
        where !parameter.range.contains(value) || (parameter.kind != .double && value != value.rounded()) {
            throw FilterFailure(filter: descriptor.name, reason: "\(parameter.key)=\(value) does not fit the plugin's schema")
        }
        var input = pc_image(pixels: image.pixels, width: Int32(image.width), height: Int32(image.height))
        var output = pc_image(pixels: nil, width: 0, height: 0)
        var message = [CChar](repeating: 0, count: Self.errorBufferSize)
        let status = CancellationBridge.withCallback(isCancelled) { callback, context in
            values.withUnsafeBufferPointer { params in
                message.withUnsafeMutableBufferPointer { error in
                    function(&input, values.isEmpty ? nil : params.baseAddress, &output, callback, context, error.baseAddress, error.count)
                }
            }
        }
        return try result(status: status, input: image, output: output, message: message)
    }

    private func result(status: Int32, input: RGBAImage, output: pc_image, message: [CChar]) throws -> RGBAImage {
        // A buffer left in `output` is ours whatever the status (ABI contract). The input's own
        // buffer handed back means "in place": adopting it would free it twice.
        let pixels = output.pixels == input.pixels ? nil : output.pixels
        guard status == PC_OK else {
            free(pixels)
            switch status {
            case PC_CANCELLED: throw FilterCancelled()
            case PC_ERROR: throw FilterFailure(filter: descriptor.name, reason: Self.text(of: message))
            default: throw FilterFailure(filter: descriptor.name, reason: "the plugin returned unknown status \(status)")
            }
        }
        guard let pixels else { return input }
        guard output.width > 0, output.height > 0, Int(output.width) <= Int(Int32.max) / 4 else {
            free(pixels)
            throw FilterFailure(filter: descriptor.name, reason: "the plugin returned an image of invalid size \(output.width)x\(output.height)")
        }
        return RGBAImage(width: Int(output.width), height: Int(output.height), adoptingMallocedPixels: pixels)
    }

    /// The plugin's message up to its NUL (or the buffer's end), with invalid UTF-8 repaired.
    private static func text(of message: [CChar]) -> String {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "the plugin failed without a message" : text
    }
}
