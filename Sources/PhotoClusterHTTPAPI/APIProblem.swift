import Foundation
import Hummingbird
import PhotoClusterProto

/// An error answer (RFC 9457 `application/problem+json`): the status, and what was wrong, naming
/// the item, with what to do. 4xx: the request itself was refused (the CLI's exit status 2);
/// 5xx: the coordinator could not do it now (exit status 1).
struct APIProblem: Error, Sendable {
    let status: Int
    let detail: String
    /// Seconds to wait before trying again (429, 503).
    var retryAfter: Int?

    init(_ status: Int, _ detail: String, retryAfter: Int? = nil) {
        self.status = status
        self.detail = detail
        self.retryAfter = retryAfter
    }

    /// The coordinator's refusal, with the status its kind stands for.
    init(_ error: Photocluster_V1_ErrorReply) {
        switch error.refusal {
        case .notPermitted, .outputOutsideRoot, .outputNotOwned, .storageNotGranted: status = 403
        case .tooLarge: status = 413
        case .tooManyJobs: status = 429
        case .keyRemoved: status = 401
        case .outputOccupied: status = 409
        case .noSuchJob: status = 404
        case .unavailable: status = 503
        default: status = 400
        }
        detail = error.message
        retryAfter = status == 429 || status == 503 ? 5 : nil
    }

    /// The status's reason phrase (a status made from its code alone has none).
    var title: String {
        let known: [HTTPResponse.Status] = [
            .badRequest, .unauthorized, .forbidden, .notFound, .conflict, .contentTooLarge, .misdirectedRequest, .unsupportedMediaType, .tooManyRequests,
            .internalServerError, .serviceUnavailable,
        ]
        return known.first { $0.code == status }?.reasonPhrase ?? HTTPResponse.Status(code: status).reasonPhrase
    }

    var schema: Components.Schemas.Problem {
        .init(_type: "about:blank", title: title, status: status, detail: detail)
    }

    /// As the generated operations answer it.
    var response: Components.Responses.Problem {
        .init(headers: .init(retryAfter: retryAfter), body: .applicationProblemJson(schema))
    }

    /// As a Hummingbird response, for answers given before an operation runs (`APIGuard`).
    var httpResponse: Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(schema)) ?? Data()
        var headers: HTTPFields = [.contentType: "application/problem+json", .cacheControl: "no-store"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if status == 401 { headers[.wwwAuthenticate] = "Bearer" }
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func unexpected(_ message: Photocluster_V1_CoordinatorToClient) -> APIProblem {
        APIProblem(500, "the coordinator answered with something unexpected (\(message.body.map { "\($0)" }.map { String($0.prefix(80)) } ?? "nothing")); report it to its operator")
    }
}
