import Foundation

/// The keys of an XML property list's top-level `<dict>` as the file spells them, in order,
/// repeats and all: `PropertyListDecoder` merges keys that differ only in Unicode normalisation
/// (or repeat), as `JSONObjectKeys` explains for JSON.
enum PropertyListKeys {
    /// The top-level dictionary's keys of an XML property list that decoded as a dictionary;
    /// nil for a binary list or one of another shape.
    static func topLevel(inXML data: Data) -> [String]? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        var keys: [String] = []
        var depth = 0
        var rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { return nil }
            let tag = rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: close)...]
            if tag.hasPrefix("?") || tag.hasPrefix("!") { continue }
            if tag.hasSuffix("/") { continue }   // <dict/>, <true/>
            let name = tag.split(separator: " ").first.map(String.init) ?? ""
            switch name {
            case "dict", "array": depth += 1
            case "/dict", "/array": depth -= 1
            case "key":
                guard let end = rest.range(of: "</key>") else { return nil }
                if depth == 1 { keys.append(unescape(String(rest[..<end.lowerBound]))) }
                rest = rest[end.upperBound...]
            default: break
            }
        }
        return keys
    }

    /// XML's five entities and character references.
    private static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
                if let number, let scalar = Unicode.Scalar(number) { result.unicodeScalars.append(scalar) } else { result += "&\(entity);" }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return result + rest
    }
}
