import Foundation

extension LoopbackHTTPServer {
    /// Serves files of a directory by name (GET /NAME), 404 for anything else; Content-Type
    /// from the extension. Connections are kept alive between requests, as a web server keeps
    /// them for a client fetching photo after photo.
    public static func serving(directory: URL, port: UInt16 = 0) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(port: port, keepAlive: true) { request in
            guard request.method == "GET" || request.method == "HEAD",
                  let name = fileName(in: request.path),
                  let body = try? Data(contentsOf: directory.appendingPathComponent(name))
            else { return .notFound() }
            return HTTPResponse(headers: ["Content-Type": contentType(of: name)], body: body)
        }
    }

    /// "/a.jpg?x=1" -> "a.jpg"; nil for anything that is not a plain name inside the directory.
    static func fileName(in path: String) -> String? {
        let target = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard target.hasPrefix("/"), let name = String(target.dropFirst()).removingPercentEncoding,
              !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0")
        else { return nil }
        return name
    }

    static func contentType(of name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "jxl": return "image/jxl"
        case "webp": return "image/webp"
        case "bmp": return "image/bmp"
        case "tif", "tiff": return "image/tiff"
        case "txt": return "text/plain; charset=utf-8"
        case "html", "htm": return "text/html; charset=utf-8"
        case "json": return "application/json"
        default: return "application/octet-stream"
        }
    }
}
