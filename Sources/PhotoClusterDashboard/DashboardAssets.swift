import Foundation

/// The operator dashboard's browser side: two HTML pages, one stylesheet and seven scripts, plain
/// HTML, CSS and JavaScript with nothing loaded from elsewhere (charts are drawn on `<canvas>`).
///
/// The files live in `Web/` as what they are (an editor, a linter and the tests in
/// `Tests/Dashboard/` read them there) and are compiled into the binary by SwiftPM
/// (`resources: [.embedInCode(...)]` in Package.swift), so `cluster` serves the dashboard with no
/// file beside it.
///
/// | path                       | file                   |
/// |----------------------------|------------------------|
/// | `/`                        | `Web/overview.html`    |
/// | `/jobs/{id}`               | `Web/job.html`         |
/// | `/assets/style.css`        | `Web/style.css`        |
/// | `/assets/api.js`           | `Web/api.js`           |
/// | `/assets/overview.js`      | `Web/overview.js`      |
/// | `/assets/chart-math.js`    | `Web/chart-math.js`    |
/// | `/assets/job.js`           | `Web/job.js`           |
/// | `/assets/viewport-math.js` | `Web/viewport-math.js` |
/// | `/assets/task-math.js`     | `Web/task-math.js`     |
/// | `/assets/task-stream.js`   | `Web/task-stream.js`   |
///
/// The pages make every request through `PhotoClusterAPI.request` (`api.js`): they read the
/// dashboard's JSON (`GET /api/overview`, `GET /api/history`, `GET /api/tasks?after=N`,
/// `GET /api/jobs/{id}`) and use the HTTP API with the dashboard's cookie for the rest
/// (`POST /v1/jobs/{id}/viewport`, `GET /v1/jobs/{id}/photos/{name}/output`).
public enum DashboardAssets {
    /// The content type of each page and asset.
    public static let htmlContentType = "text/html; charset=utf-8"
    public static let cssContentType = "text/css; charset=utf-8"
    public static let javaScriptContentType = "text/javascript; charset=utf-8"

    /// The overview page, served at `/`.
    public static let overviewHTML = text(PackageResources.overview_html)
    /// The job page, served at `/jobs/{id}` (its script reads the id from the path).
    public static let jobHTML = text(PackageResources.job_html)

    /// The assets served at `/assets/{name}`, by name.
    static let assets: [String: (contentType: String, body: String)] = [
        "style.css": (cssContentType, text(PackageResources.style_css)),
        "api.js": (javaScriptContentType, text(PackageResources.api_js)),
        "overview.js": (javaScriptContentType, text(PackageResources.overview_js)),
        "chart-math.js": (javaScriptContentType, text(PackageResources.chart_math_js)),
        "job.js": (javaScriptContentType, text(PackageResources.job_js)),
        "viewport-math.js": (javaScriptContentType, text(PackageResources.viewport_math_js)),
        "task-math.js": (javaScriptContentType, text(PackageResources.task_math_js)),
        "task-stream.js": (javaScriptContentType, text(PackageResources.task_stream_js)),
    ]

    /// The asset served at `/assets/{name}`, with its content type; nil for an unknown name.
    public static func asset(named name: String) -> (contentType: String, body: String)? {
        assets[name]
    }

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
