import Foundation

/// Reads a manifest in any of its three formats, detected from the content:
/// - property list (XML or binary): a dictionary name → URL string, or an array of
///   dictionaries with `name`, `url` and optional `filters`;
/// - JSON: an object name → URL string, or an array of objects with `name`, `url`, `filters`;
/// - plain text: one URL per line, blank lines and `#` comments ignored, the name being the
///   URL's last path component.
///
/// Dictionary forms carry no order, so their photos are ordered by name; the array forms and
/// plain text keep the file's order.
public struct ManifestParser: Sendable {
    public var limits: ManifestLimits

    public init(limits: ManifestLimits = ManifestLimits()) {
        self.limits = limits
    }

    public func parse(contentsOf url: URL) throws -> Manifest {
        let file = url.path
        let attributes = try? FileManager.default.attributesOfItem(atPath: file)
        if let size = attributes?[.size] as? Int, size > limits.maxBytes {
            throw ManifestError(file: file, reason: "file is \(size) bytes, over the limit of \(limits.maxBytes)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ManifestError(file: file, reason: "cannot read the file (\(Self.describe(error)))")
        }
        return try parse(data, file: file)
    }

    public func parse(_ data: Data, file: String) throws -> Manifest {
        guard data.count <= limits.maxBytes else {
            throw ManifestError(file: file, reason: "manifest is \(data.count) bytes, over the limit of \(limits.maxBytes)")
        }
        let format = Self.detectFormat(data)
        var validator = EntryValidator(file: file, limits: limits)
        switch format {
        case .propertyList:
            try parsePropertyList(data, validator: &validator)
        case .json:
            try parseJSON(data, validator: &validator)
        case .text:
            try parseText(data, validator: &validator)
        }
        guard !validator.entries.isEmpty else {
            throw ManifestError(file: file, reason: "the manifest lists no photos")
        }
        return Manifest(entries: validator.entries, format: format)
    }

    /// Looks at the first meaningful bytes: `bplist`/`<?xml`/`<plist`/`<!DOCTYPE` → property
    /// list, `{`/`[` → JSON, anything else → plain text.
    public static func detectFormat(_ data: Data) -> Manifest.Format {
        var bytes = data.prefix(512)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if bytes.starts(with: Array("bplist".utf8)) { return .propertyList }
        let head = bytes.drop(while: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
        if head.first == UInt8(ascii: "<") { return .propertyList }
        if head.first == UInt8(ascii: "{") || head.first == UInt8(ascii: "[") { return .json }
        return .text
    }

    // MARK: - Formats

    private func parsePropertyList(_ data: Data, validator: inout EntryValidator) throws {
        let root: Any
        do {
            root = try PropertyListDecoder().decode(PropertyListTree.self, from: data).foundationValue
        } catch {
            throw ManifestError(file: validator.file, reason: "not a valid property list: \(Self.describe(error))")
        }
        // Keys that the dictionary merged (written twice, or NFC/NFD twins) are refused.
        if let dictionary = root as? [String: Any],
            let keys = BinaryPropertyListKeys.topLevel(in: data) ?? PropertyListKeys.topLevel(inXML: data), keys.count != dictionary.count {
            try validator.checkUniqueKeys(keys)
        }
        try parseTree(root, kind: "property list", validator: &validator)
    }

    private func parseJSON(_ data: Data, validator: inout EntryValidator) throws {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw ManifestError(file: validator.file, reason: "not valid JSON: \(Self.describeJSONError(error, in: data))")
        }
        // Keys that the dictionary merged (written twice, or NFC/NFD twins) are refused.
        if let dictionary = root as? [String: Any], let keys = JSONObjectKeys.topLevel(in: data), keys.count != dictionary.count {
            try validator.checkUniqueKeys(keys)
        }
        try parseTree(root, kind: "JSON", validator: &validator)
    }

    /// The dictionary and array forms shared by property lists and JSON.
    private func parseTree(_ root: Any, kind: String, validator: inout EntryValidator) throws {
        if let dictionary = root as? [String: Any] {
            try validator.checkCount(dictionary.count)
            for name in dictionary.keys.sorted() {
                let where_ = "key \"\(name)\""
                guard let url = dictionary[name] as? String else {
                    throw ManifestError(file: validator.file, entry: where_, reason: "the value must be a URL string")
                }
                try validator.add(ManifestEntry(name: name, url: url), at: where_)
            }
        } else if let array = root as? [Any] {
            try validator.checkCount(array.count)
            for (index, element) in array.enumerated() {
                let where_ = "entry \(index + 1)"
                guard let object = element as? [String: Any] else {
                    throw ManifestError(file: validator.file, entry: where_, reason: "must be a dictionary with \"name\" and \"url\"")
                }
                guard let name = object["name"] as? String else {
                    throw ManifestError(file: validator.file, entry: where_, reason: "\"name\" is missing or not a string")
                }
                guard let url = object["url"] as? String else {
                    throw ManifestError(file: validator.file, entry: "\(where_) (\"\(name)\")", reason: "\"url\" is missing or not a string")
                }
                var filters: [String]?
                if let raw = object["filters"] {
                    guard let list = raw as? [String] else {
                        throw ManifestError(file: validator.file, entry: "\(where_) (\"\(name)\")", reason: "\"filters\" must be an array of strings such as \"sepia:intensity=0.8\"")
                    }
                    filters = list
                }
                try validator.add(ManifestEntry(name: name, url: url, filters: filters), at: "\(where_) (\"\(name)\")")
            }
        } else {
            throw ManifestError(file: validator.file, reason: "the top level of a \(kind) manifest must be a dictionary (name → URL) or an array of {name, url}")
        }
    }

    private func parseText(_ data: Data, validator: inout EntryValidator) throws {
        guard let text = String(data: data, encoding: .utf8) else {
            throw ManifestError(file: validator.file, reason: "not UTF-8 text, JSON or a property list")
        }
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let where_ = "line \(lineNumber)"
            guard let name = Self.lastPathComponent(ofURL: line) else {
                throw ManifestError(file: validator.file, entry: where_, reason: "\"\(line.prefix(80))\" is not a URL with a file name (expected e.g. https://host/photos/cat.jpg)")
            }
            try validator.add(ManifestEntry(name: name, url: line), at: where_)
        }
    }

    // MARK: - Helpers

    static func lastPathComponent(ofURL string: String) -> String? {
        guard let components = URLComponents(string: string), components.scheme != nil, components.host != nil else { return nil }
        let path = components.percentEncodedPath
        guard let last = path.split(separator: "/").last else { return nil }
        return String(last).removingPercentEncoding ?? String(last)
    }

    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if let debug = ns.userInfo["NSDebugDescription"] as? String { return debug }
        return ns.localizedDescription
    }

    /// Foundation reports JSON errors by character offset; turn that into a line number.
    static func describeJSONError(_ error: Error, in data: Data) -> String {
        let message = describe(error)
        guard let range = message.range(of: #"character (\d+)"#, options: .regularExpression),
            let offset = Int(message[range].dropFirst("character ".count))
        else { return message }
        let line = data.prefix(offset).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        let sentence = message.hasSuffix(".") ? String(message.dropLast()) : message
        return "\(sentence) (line \(line))"
    }
}
