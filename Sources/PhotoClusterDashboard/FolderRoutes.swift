import Foundation
import Hummingbird
import Logging

/// The files of one directory over HTTP, as `cluster demo` serves the sample photos to its
/// workers: `GET /NAME` (a query string is ignored), the content type from the extension,
/// ranges and keep-alive as Hummingbird's `FileMiddleware` gives them; 404 for anything else.
public enum FolderRoutes {
    public static func router(serving directory: URL, logger: Logger) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: FileMiddleware(directory.path, logger: logger))
        return router
    }
}
