import Foundation
import PhotoClusterCore

/// Reads the few fields PhotoCluster needs from S3's small XML answers: an error's `Code` and
/// `Message`, a new multipart upload's `UploadId`. Foundation's XML parser would bring libxml2
/// into every deployment for three text fields of documents S3 writes in one fixed shape.
enum S3XML {
    /// The text of the first `<name>…</name>` element, entities decoded; nil when there is none.
    static func text(of name: String, in document: Data) -> String? {
        guard let xml = String(data: document, encoding: .utf8),
            let open = xml.range(of: "<\(name)>"),
            let close = xml.range(of: "</\(name)>", range: open.upperBound..<xml.endIndex)
        else { return nil }
        return decodeEntities(String(xml[open.upperBound..<close.lowerBound]))
    }

    /// Whether the document's root element is `name` (S3 may answer 200 with an `<Error>`).
    static func hasRoot(_ name: String, in document: Data) -> Bool {
        guard let xml = String(data: document.prefix(512), encoding: .utf8) else { return false }
        var rest = Substring(xml)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            if rest.hasPrefix("?") || rest.hasPrefix("!") { continue }   // the declaration, comments
            return rest.hasPrefix(name + ">") || rest.hasPrefix(name + " ")
        }
        return false
    }

    /// `text` made safe as XML character data.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
