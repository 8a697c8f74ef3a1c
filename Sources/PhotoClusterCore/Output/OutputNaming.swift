/// Turns photo names into file names that are safe inside an output directory.
///
/// - Only letters, digits, `-`, `_` and `.` survive; anything else (path separators, spaces,
///   control characters) becomes `_`, and leading dots are dropped, so nothing can escape the
///   directory or hide.
/// - A trailing image extension is removed: the writer adds the extension of the format it
///   actually writes.
/// - Stems are unique ignoring case (so two names never map to one file, even on
///   case-insensitive file systems): later duplicates get `-2`, `-3`, … in manifest order.
public enum OutputNaming {
    public static let maxStemLength = 120
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "jpe", "webp"]

    public static func stems(for names: [String]) -> [String] {
        var stems = Stems()
        return names.map { stems.next(for: $0) }
    }

    /// Gives each name of a manifest, in order, its unique stem; holds only the stems taken.
    public struct Stems {
        private var taken = Set<String>()

        public init() {}

        public mutating func next(for name: String) -> String {
            let base = sanitizedStem(name)
            var candidate = base
            var counter = 2
            while taken.contains(candidate.lowercased()) {
                let suffix = "-\(counter)"
                candidate = String(base.prefix(maxStemLength - suffix.count)) + suffix
                counter += 1
            }
            taken.insert(candidate.lowercased())
            return candidate
        }
    }

    /// The safe stem of one name, before de-duplication.
    public static func sanitizedStem(_ name: String) -> String {
        var stem = name
        if let dot = stem.lastIndex(of: "."), imageExtensions.contains(stem[stem.index(after: dot)...].lowercased()) {
            stem = String(stem[..<dot])
        }
        var safe = String(stem.unicodeScalars.map { scalar -> Character in
            let allowed = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_" || scalar == ".")
            return allowed ? Character(scalar) : "_"
        })
        while safe.hasPrefix(".") { safe.removeFirst() }
        safe = String(safe.prefix(maxStemLength))
        return safe.isEmpty ? "photo" : safe
    }

    public static func fileName(stem: String, format fileExtension: String) -> String {
        "\(stem).\(fileExtension)"
    }
}
