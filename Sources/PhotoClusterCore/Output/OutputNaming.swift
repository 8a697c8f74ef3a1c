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
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "jpe", "webp", "heic", "heif", "avif", "tif", "tiff", "gif", "jxl"]

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
            while taken.contains(lowercased(candidate)) {
                let suffix = "-\(counter)"
                candidate = String(base.prefix(maxStemLength - suffix.count)) + suffix
                counter += 1
            }
            taken.insert(lowercased(candidate))
            return candidate
        }

        /// A stem in lower case; most have no capital, and stay as they are (no copy).
        private func lowercased(_ stem: String) -> String {
            stem.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) ? stem.lowercased() : stem
        }
    }

    /// The safe stem of one name, before de-duplication.
    public static func sanitizedStem(_ name: String) -> String {
        asciiStemUnchanged(name) ?? sanitizedStemByRule(name)
    }

    /// The rule itself, character by character.
    static func sanitizedStemByRule(_ name: String) -> String {
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

    /// The common case, answered from the bytes alone: an ASCII name of allowed characters,
    /// with no leading dot and no image extension, that fits: it is its own stem. Nil otherwise
    /// (the general rule above decides).
    private static func asciiStemUnchanged(_ name: String) -> String? {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maxStemLength, bytes.first != UInt8(ascii: "."),
            bytes.allSatisfy({ isAllowedASCII($0) })
        else { return nil }
        if let dot = bytes.lastIndex(of: UInt8(ascii: ".")), hasImageExtension(bytes[bytes.index(after: dot)...]) { return nil }
        return name
    }

    private static func isAllowedASCII(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    private static func hasImageExtension(_ bytes: Substring.UTF8View) -> Bool {
        bytes.count <= 4 && imageExtensions.contains(String(decoding: bytes, as: UTF8.self).lowercased())
    }
}
