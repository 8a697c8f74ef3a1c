import CPhotoClusterPluginABI
import PhotoClusterCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plugin's table, checked and copied into Swift values, so nothing later reads the C
/// structures again.
struct PluginTable {
    struct Filter {
        /// Without `origin`: the loader knows the file.
        let descriptor: FilterDescriptor
        let apply: pc_filter_fn
    }

    struct Problem: Error {
        let reason: String
    }

    static let maxFilters = 256
    static let maxParameters = 64
    static let maxNameLength = 64
    static let maxTextLength = 4096

    /// The filters that passed their checks, in table order.
    let filters: [Filter]
    /// Why each of the others was refused.
    let refusedFilters: [String]

    /// Throws when the whole plugin must be refused.
    init(reading pointer: UnsafePointer<pc_plugin>) throws(Problem) {
        // The version alone first: a table of another version may be shorter than ours.
        let version = UnsafeRawPointer(pointer).load(as: UInt32.self)
        guard version == UInt32(PC_PLUGIN_ABI_VERSION) else {
            throw Problem(reason: "ABI version \(version), this worker speaks \(PC_PLUGIN_ABI_VERSION)")
        }
        let plugin = pointer.pointee
        guard let pluginName = try Self.text(plugin.plugin_name, "plugin_name", limit: Self.maxTextLength), !pluginName.isEmpty else {
            throw Problem(reason: "plugin_name is missing")
        }
        guard (1...Self.maxFilters).contains(Int(plugin.filter_count)), let definitions = plugin.filters else {
            throw Problem(reason: "expected 1-\(Self.maxFilters) filters, got filter_count \(plugin.filter_count) and filters \(plugin.filters == nil ? "NULL" : "set")")
        }
        var filters: [Filter] = []
        var refused: [String] = []
        for index in 0..<Int(plugin.filter_count) {
            do throws(Problem) {
                filters.append(try Self.filter(definitions[index], index: index))
            } catch {
                refused.append(error.reason)
            }
        }
        self.filters = filters
        self.refusedFilters = refused
    }

    private static func filter(_ definition: pc_filter_def, index: Int) throws(Problem) -> Filter {
        let name = try text(definition.name, "filter #\(index + 1) name", limit: maxTextLength) ?? ""
        guard isName(name) else {
            throw Problem(reason: "filter #\(index + 1) name \(name.debugDescription) must be 1-\(maxNameLength) characters of a-z 0-9 _ -")
        }
        do throws(Problem) {
            guard let version = try text(definition.version, "version", limit: maxNameLength), !version.isEmpty else {
                throw Problem(reason: "version is missing")
            }
            let summary = try text(definition.summary, "summary", limit: maxTextLength) ?? ""
            guard let apply = definition.apply else { throw Problem(reason: "apply is NULL") }
            let parameters = try self.parameters(definition.params, count: definition.param_count)
            return Filter(
                descriptor: FilterDescriptor(name: name, version: version, summary: summary, parameters: parameters),
                apply: apply
            )
        } catch {
            throw Problem(reason: "filter \"\(name)\": \(error.reason)")
        }
    }

    private static func parameters(_ schema: UnsafePointer<pc_param_schema>?, count: Int32) throws(Problem) -> [FilterParameter] {
        guard (0...maxParameters).contains(Int(count)) else {
            throw Problem(reason: "param_count \(count) is not in 0-\(maxParameters)")
        }
        guard count == 0 || schema != nil else { throw Problem(reason: "params is NULL but param_count is \(count)") }
        var parameters: [FilterParameter] = []
        for index in 0..<Int(count) {
            let parameter = try self.parameter(schema![index], index: index)
            guard !parameters.contains(where: { $0.key == parameter.key }) else {
                throw Problem(reason: "parameter \"\(parameter.key)\" is declared twice")
            }
            parameters.append(parameter)
        }
        return parameters
    }

    private static func parameter(_ schema: pc_param_schema, index: Int) throws(Problem) -> FilterParameter {
        let key = try text(schema.key, "parameter #\(index + 1) key", limit: maxTextLength) ?? ""
        guard isName(key) else {
            throw Problem(reason: "parameter #\(index + 1) key \(key.debugDescription) must be 1-\(maxNameLength) characters of a-z 0-9 _ -")
        }
        do throws(Problem) {
            let kind: FilterParameter.Kind
            switch schema.kind {
            case PC_PARAM_DOUBLE: kind = .double
            case PC_PARAM_INT: kind = .int
            case PC_PARAM_BOOL: kind = .bool
            default: throw Problem(reason: "kind \(schema.kind) is not PC_PARAM_DOUBLE, PC_PARAM_INT or PC_PARAM_BOOL")
            }
            let (low, high, initial) = (schema.min, schema.max, schema.default_value)
            guard low.isFinite, high.isFinite, initial.isFinite, low <= initial, initial <= high else {
                throw Problem(reason: "needs finite min <= default <= max, got min \(low), max \(high), default \(initial)")
            }
            if kind == .int, [low, high, initial].contains(where: { $0 != $0.rounded() }) {
                throw Problem(reason: "an int parameter needs whole-number min, max and default")
            }
            if kind == .bool, low != 0 || high != 1 || (initial != 0 && initial != 1) {
                throw Problem(reason: "a bool parameter needs min 0, max 1 and default 0 or 1")
            }
            let summary = try text(schema.summary, "summary", limit: maxTextLength) ?? ""
            return FilterParameter(key: key, kind: kind, range: low...high, defaultValue: initial, summary: summary)
        } catch {
            throw Problem(reason: "parameter \"\(key)\": \(error.reason)")
        }
    }

    /// The same alphabet `FilterSpec` accepts, restricted to what survives its lowercasing and
    /// its `name:key=value,…` syntax.
    private static func isName(_ text: String) -> Bool {
        (1...maxNameLength).contains(text.utf8.count)
            && text.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D }
    }

    /// A NUL-terminated UTF-8 string read without running past `limit` bytes; nil for NULL.
    private static func text(_ pointer: UnsafePointer<CChar>?, _ what: String, limit: Int) throws(Problem) -> String? {
        guard let pointer else { return nil }
        let length = strnlen(pointer, limit + 1)
        guard length <= limit else { throw Problem(reason: "\(what) is longer than \(limit) bytes") }
        guard let text = String(validating: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self) else {
            throw Problem(reason: "\(what) is not UTF-8")
        }
        return text
    }
}
