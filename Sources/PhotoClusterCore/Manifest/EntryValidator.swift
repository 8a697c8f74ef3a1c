import Foundation

/// Checks each entry as it is read and collects the valid ones; the first problem throws a
/// `ManifestError` that names the entry.
struct EntryValidator {
    let file: String
    let limits: ManifestLimits
    private(set) var entries: [ManifestEntry] = []
    /// Where each name was first seen, and how it was spelled, to name both places of a
    /// duplicate. Swift compares (and hashes) strings by canonical equivalence, so names that
    /// differ only in Unicode normalisation (NFC/NFD) meet here as one.
    private var seen: [String: (location: String, spelling: String)] = [:]

    init(file: String, limits: ManifestLimits) {
        self.file = file
        self.limits = limits
    }

    func checkCount(_ count: Int) throws {
        if count > limits.maxEntries {
            throw ManifestError(file: file, reason: "\(count) photos, over the limit of \(limits.maxEntries)")
        }
    }

    mutating func add(_ entry: ManifestEntry, at location: String) throws {
        try checkCount(entries.count + 1)
        try checkName(entry.name, at: location)
        try checkURL(entry.url, at: location)
        if let first = seen[entry.name] {
            throw ManifestError(file: file, entry: location, reason: Self.duplicate(entry.name, of: first.spelling, at: first.location))
        }
        seen[entry.name] = (location, entry.name)
        entries.append(entry)
    }

    /// Refuses the first key of `keys` (a dictionary's, as the file spells them) that repeats an
    /// earlier one, exactly or after Unicode normalisation.
    func checkUniqueKeys(_ keys: [String]) throws {
        var first: [String: String] = [:]
        for key in keys {
            if let earlier = first[key] {
                throw ManifestError(file: file, entry: "key \"\(key)\"", reason: Self.duplicate(key, of: earlier, at: "key \"\(earlier)\""))
            }
            first[key] = key
        }
    }

    private static func duplicate(_ name: String, of earlier: String, at location: String) -> String {
        let same = name.unicodeScalars.elementsEqual(earlier.unicodeScalars)
        let how = same ? "" : " (the same name in another Unicode normalisation: \(Self.scalars(earlier)) and \(Self.scalars(name)))"
        return "the name \"\(name)\" is already used by \(location)\(how); names must be unique"
    }

    /// "U+0065 U+0301": how a name is spelled, where two spellings look alike.
    private static func scalars(_ name: String) -> String {
        name.unicodeScalars.prefix(16).map { String(format: "U+%04X", $0.value) }.joined(separator: " ") + (name.unicodeScalars.count > 16 ? " …" : "")
    }

    private func checkName(_ name: String, at location: String) throws {
        if name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ManifestError(file: file, entry: location, reason: "the name is empty")
        }
        if name.utf8.count > limits.maxNameLength {
            throw ManifestError(file: file, entry: location, reason: "the name is \(name.utf8.count) bytes long, over the limit of \(limits.maxNameLength)")
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ManifestError(file: file, entry: location, reason: "the name contains control characters")
        }
    }

    private func checkURL(_ url: String, at location: String) throws {
        if url.isEmpty {
            throw ManifestError(file: file, entry: location, reason: "the URL is empty")
        }
        if url.utf8.count > limits.maxURLLength {
            throw ManifestError(file: file, entry: location, reason: "the URL is \(url.utf8.count) bytes long, over the limit of \(limits.maxURLLength)")
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme, !scheme.isEmpty else {
            throw ManifestError(file: file, entry: location, reason: "\"\(url.prefix(120))\" is not a valid URL (expected e.g. https://host/photo.jpg)")
        }
        if components.host?.isEmpty ?? true, scheme != "file" {
            throw ManifestError(file: file, entry: location, reason: "\"\(url.prefix(120))\" has no host")
        }
    }
}
