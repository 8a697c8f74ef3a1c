import Hummingbird

/// A request under /v1 that no operation takes (an unknown path, or a method its path does not
/// have) is answered with a problem, as every other error of the API is, instead of the router's
/// empty 404.
struct APINotFound<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/v1/") else { return try await next(request, context) }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return APIProblem(404, "no operation \(request.method) \(request.uri.path): /v1/openapi.json lists them").httpResponse
        }
    }
}
