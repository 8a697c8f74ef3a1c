import Foundation

/// Checks each entry as it is read and collects the valid ones; the first problem throws a
/// `ManifestError` that names the entry.
struct EntryValidator {
    let file: String
    let limits: ManifestLimits
    private(set) var entries: [ManifestEntry] = []
    /// Where each name was first seen, to name both places of a duplicate.
    private var seen: [String: String] = [:]

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
            throw ManifestError(file: file, entry: location, reason: "the name \"\(entry.name)\" is already used by \(first); names must be unique")
        }
        seen[entry.name] = location
        entries.append(entry)
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
