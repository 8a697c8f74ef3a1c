import Foundation
import Hummingbird
import PhotoClusterCoordinator

/// The coordinator's web dashboard: the overview and job pages, the read-only JSON they show
/// (what the HTTP API has no operation for: the overview, the history, the task stream, a job
/// with every photo), and `/metrics`. The pages act (a job's viewport) and fetch outputs through
/// the HTTP API (/v1), with the dashboard's cookie. Every answer comes from the coordinator's
/// loop thread through its async queries; every request passes `DashboardGuard` first (host,
/// token, POST origin; CSP on every answer).
public enum DashboardRoutes {
    public static func router(for coordinator: CoordinatorNode, access: DashboardAccess) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: DashboardGuard(access: access))
        MetricsRoutes.add(to: router) { coordinator.metricsExposition() }

        router.get("/") { _, _ in page(DashboardAssets.overviewHTML, type: DashboardAssets.htmlContentType) }
        router.get("/jobs/:id") { _, _ in page(DashboardAssets.jobHTML, type: DashboardAssets.htmlContentType) }
        router.get("/assets/:name") { _, context in
            let name = try context.parameters.require("name")
            guard let asset = DashboardAssets.asset(named: name) else { return problem(.notFound, "no asset \(name)") }
            return page(asset.body, type: asset.contentType)
        }

        router.get("/api/overview") { _, _ in
            json(DashboardJSON.Overview(await coordinator.status()))
        }
        router.get("/api/history") { _, _ in
            json(DashboardJSON.History(await coordinator.throughputHistory()))
        }
        router.get("/api/tasks") { request, _ in
            let after = request.uri.queryParameters.get("after", as: UInt64.self) ?? 0
            let limit = min(max(request.uri.queryParameters.get("limit", as: Int.self) ?? 20_000, 1), 50_000)
            return json(DashboardJSON.TaskStream(await coordinator.taskSpans(after: after, limit: limit)))
        }
        router.get("/api/jobs/:id") { _, context in
            let id = try context.parameters.require("id")
            let status = await coordinator.status(jobID: id, includePhotos: true)
            guard let job = status.jobs.first else { return problem(.notFound, coordinator.noJob(id)) }
            return json(DashboardJSON.Job(job, includePhotos: true))
        }
        return router
    }

    static func page(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(DashboardJSON.Problem(error: message), status: status)
    }
}
