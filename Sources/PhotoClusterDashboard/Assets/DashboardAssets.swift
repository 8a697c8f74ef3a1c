import Foundation

/// The operator dashboard's browser side: two HTML pages, one stylesheet and two scripts, plain
/// HTML, CSS and JavaScript with nothing loaded from elsewhere (charts are drawn on `<canvas>`).
///
/// | path                    | asset          |
/// |-------------------------|----------------|
/// | `/`                     | `overviewHTML` |
/// | `/jobs/{id}`            | `jobHTML`      |
/// | `/assets/style.css`     | `styleCSS`     |
/// | `/assets/dashboard.js`  | `dashboardJS`  |
/// | `/assets/job.js`        | `jobJS`        |
///
/// The pages use the JSON API only: `GET /api/overview`, `GET /api/history`,
/// `GET /api/jobs/{id}`, `POST /api/jobs/{id}/viewport` and `GET /api/jobs/{id}/photos/{index}/image`.
public enum DashboardAssets {
    /// The content type of each page and asset.
    public static let htmlContentType = "text/html; charset=utf-8"
    public static let cssContentType = "text/css; charset=utf-8"
    public static let javaScriptContentType = "text/javascript; charset=utf-8"

    /// The asset served at `/assets/{name}`, with its content type; nil for an unknown name.
    public static func asset(named name: String) -> (contentType: String, body: String)? {
        switch name {
        case "style.css": return (cssContentType, styleCSS)
        case "dashboard.js": return (javaScriptContentType, dashboardJS)
        case "job.js": return (javaScriptContentType, jobJS)
        default: return nil
        }
    }
}
