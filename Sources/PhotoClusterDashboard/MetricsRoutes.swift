import Hummingbird

/// `/metrics` (Prometheus text format) and `/healthz` (the process answers).
public enum MetricsRoutes {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public static func add(to router: Router<BasicRequestContext>, exposition: @escaping @Sendable () -> String) {
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: contentType],
                body: .init(byteBuffer: ByteBuffer(string: exposition())))
        }
        router.get("/healthz") { _, _ in "ok\n" }
    }

    /// A router that serves only the metrics routes: what a worker's `--metrics-bind` serves.
    public static func router(exposition: @escaping @Sendable () -> String) -> Router<BasicRequestContext> {
        let router = Router()
        add(to: router, exposition: exposition)
        return router
    }
}
