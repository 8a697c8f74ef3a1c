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
///
/// Workers do not call it in their own process: a plugin host (a child process) does, through
/// `run(pixels:…)`, on pixels in memory it shares with the worker.
public struct PluginFilterStage: FilterStage {
    static let errorBufferSize = 1024

    /// What a filter did with the pixels it was given.
    public enum Output {
        /// Filtered them where they were.
        case inPlace
        /// Made a new image (of any size).
        case replaced(RGBAImage)
    }

    public let descriptor: FilterDescriptor
    private let function: pc_filter_fn

    init(definition: PluginTable.Filter, origin: String) {
        var descriptor = definition.descriptor
        descriptor.origin = origin
        self.descriptor = descriptor
        self.function = definition.apply
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        // In schema order; the registry resolved every key, the default covers a caller that did not.
        let values = descriptor.parameters.map { parameters.values[$0.key] ?? $0.defaultValue }
        let output = try CancellationBridge.withCallback(isCancelled) { callback, context in
            try run(pixels: image.pixels, width: image.width, height: image.height, values: values, isCancelled: callback, context: context)
        }
        switch output {
        case .inPlace: return image
        case .replaced(let result): return result
        }
    }

    /// Calls the plugin on `width` x `height` RGBA8 pixels the caller owns, with one value per
    /// schema entry in schema order; `isCancelled(context)` is the plugin's cancellation check.
    public func run(
        pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, values: [Double],
        isCancelled: pc_is_cancelled_fn, context: UnsafeMutableRawPointer?
    ) throws -> Output {
        guard width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw FilterFailure(filter: descriptor.name, reason: "a \(width)x\(height) image is too large for plugins")
        }
        try check(values)
        var input = pc_image(pixels: pixels, width: Int32(width), height: Int32(height))
        var output = pc_image(pixels: nil, width: 0, height: 0)
        var message = [CChar](repeating: 0, count: Self.errorBufferSize)
        let status = values.withUnsafeBufferPointer { params in
            message.withUnsafeMutableBufferPointer { error in
                function(&input, values.isEmpty ? nil : params.baseAddress, &output, isCancelled, context, error.baseAddress, error.count)
            }
        }
        return try result(status: status, input: pixels, output: output, message: message)
    }

    /// The ABI promises plugins values that fit their schema; a caller that skipped the
    /// registry's checks is stopped here rather than in C.
    private func check(_ values: [Double]) throws {
        guard values.count == descriptor.parameters.count else {
            throw FilterFailure(filter: descriptor.name, reason: "\(values.count) parameter values for a schema of \(descriptor.parameters.count)")
        }
        for (parameter, value) in zip(descriptor.parameters, values)
        where !parameter.range.contains(value) || (parameter.kind != .double && value != value.rounded()) {
            throw FilterFailure(filter: descriptor.name, reason: "\(parameter.key)=\(value) does not fit the plugin's schema")
        }
    }

    private func result(status: Int32, input: UnsafeMutablePointer<UInt8>, output: pc_image, message: [CChar]) throws -> Output {
        // A buffer left in `output` is ours whatever the status (ABI contract). The input's own
        // buffer handed back means "in place": adopting it would free it twice.
        let pixels = output.pixels == input ? nil : output.pixels
        guard status == PC_OK else {
            free(pixels)
            switch status {
            case PC_CANCELLED: throw FilterCancelled()
            case PC_ERROR: throw FilterFailure(filter: descriptor.name, reason: Self.text(of: message))
            default: throw FilterFailure(filter: descriptor.name, reason: "the plugin returned unknown status \(status)")
            }
        }
        guard let pixels else { return .inPlace }
        guard output.width > 0, output.height > 0, Int(output.width) <= Int(Int32.max) / 4 else {
            free(pixels)
            throw FilterFailure(filter: descriptor.name, reason: "the plugin returned an image of invalid size \(output.width)x\(output.height)")
        }
        return .replaced(RGBAImage(width: Int(output.width), height: Int(output.height), adoptingMallocedPixels: pixels))
    }

    /// The plugin's message up to its NUL (or the buffer's end), with invalid UTF-8 repaired.
    private static func text(of message: [CChar]) -> String {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "the plugin failed without a message" : text
    }
}
