import Foundation
import OpenAPIRuntime
import PhotoClusterCoordinator
import PhotoClusterProto

/// The API's operations (the generated `APIProtocol`): each asks the coordinator as the caller
/// `APIGuard` found, and answers the generated shapes. A refusal becomes a problem with the
/// status its kind stands for (`APIProblem`).
struct ClusterAPI: APIProtocol {
    let coordinator: CoordinatorNode

    /// The coordinator's answer to `body`, asked as the current caller.
    func ask(_ body: Photocluster_V1_ClientToCoordinator.OneOf_Body, bytes: Int = 0) async -> Result<Photocluster_V1_CoordinatorToClient.OneOf_Body, APIProblem> {
        let reply = await coordinator.request(body, from: APICaller.current.requester, bytes: bytes)
        switch reply.body {
        case .error(let error)?: return .failure(APIProblem(error))
        case let body?: return .success(body)
        case nil: return .failure(.unexpected(reply))
        }
    }

    /// One job's summary with every photo's status, or why not.
    func summary(of jobID: String) async -> Result<Photocluster_V1_JobSummary, APIProblem> {
        await ask(.status(.with { $0.jobID = jobID })).flatMap { body in
            guard case .status(let status) = body else { return .failure(.unexpected(.with { $0.body = body })) }
            guard let job = status.jobs.first else { return .failure(APIProblem(404, "no job \(jobID) on this coordinator")) }
            return .success(job)
        }
    }

    func getOpenAPIDocument(_ input: Operations.GetOpenAPIDocument.Input) async throws -> Operations.GetOpenAPIDocument.Output {
        .ok(.init(body: .json(try Self.document)))
    }

    private static var document: OpenAPIObjectContainer {
        get throws { try JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(OpenAPIDocument.json.utf8)) }
    }

    func submitJob(_ input: Operations.SubmitJob.Input) async throws -> Operations.SubmitJob.Output {
        guard case .json(let body) = input.body else { return Self.problem(APIProblem(415, "send the job as application/json")) }
        let submit: Photocluster_V1_SubmitJob
        do {
            submit = try JobSubmission.message(for: body)
        } catch {
            return Self.problem(error as? APIProblem ?? APIProblem(400, "\(error)"))
        }
        switch await ask(.submit(submit), bytes: (try? submit.serializedBytes() as [UInt8])?.count ?? 0) {
        case .success(.accepted(let accepted)):
            return .created(.init(headers: .init(location: "/v1/jobs/\(accepted.jobID)"),
                                  body: .json(.init(id: accepted.jobID, total: Int(accepted.total)))))
        case .success(let other): return Self.problem(.unexpected(.with { $0.body = other }))
        case .failure(let problem): return Self.problem(problem)
        }
    }

    func listJobs(_ input: Operations.ListJobs.Input) async throws -> Operations.ListJobs.Output {
        switch await ask(.status(.init())) {
        case .success(.status(let status)): return .ok(.init(body: .json(.init(jobs: status.jobs.map(APIJSON.job)))))
        case .success(let other): return Self.problem(.unexpected(.with { $0.body = other }))
        case .failure(let problem): return Self.problem(problem)
        }
    }

    func getJob(_ input: Operations.GetJob.Input) async throws -> Operations.GetJob.Output {
        switch await summary(of: input.path.id) {
        case .success(let job): return .ok(.init(body: .json(APIJSON.job(job))))
        case .failure(let problem): return Self.problem(problem)
        }
    }

    func setViewport(_ input: Operations.SetViewport.Input) async throws -> Operations.SetViewport.Output {
        guard case .json(let body) = input.body else { return Self.problem(APIProblem(415, "send the viewport as application/json")) }
        let viewport: Photocluster_V1_Viewport
        do {
            viewport = try ViewportBody.proto(body)
        } catch {
            return Self.problem(error)
        }
        switch await ask(.viewport(.with { $0.jobID = input.path.id; $0.viewport = viewport })) {
        case .success(.status(let status)) where !status.jobs.isEmpty: return .ok(.init(body: .json(APIJSON.job(status.jobs[0]))))
        case .success(let other): return Self.problem(.unexpected(.with { $0.body = other }))
        case .failure(let problem): return Self.problem(problem)
        }
    }

    func suspendJob(_ input: Operations.SuspendJob.Input) async throws -> Operations.SuspendJob.Output {
        switch await ask(.suspend(.with { $0.jobID = input.path.id })) {
        case .success(.ack): return .noContent(.init())
        case .success(let other): return Self.problem(.unexpected(.with { $0.body = other }))
        case .failure(let problem): return Self.problem(problem)
        }
    }

    func resumeJob(_ input: Operations.ResumeJob.Input) async throws -> Operations.ResumeJob.Output {
        switch await ask(.resume(.with { $0.jobID = input.path.id })) {
        case .success(.ack): return .noContent(.init())
        case .success(let other): return Self.problem(.unexpected(.with { $0.body = other }))
        case .failure(let problem): return Self.problem(problem)
        }
    }

    func cancelJob(_ input: Operations.CancelJob.Input) async throws -> Operations.CancelJob.Output {
        var names: [String] = []
        if case .json(let body)? = input.body { names = body.photos ?? [] }
        switch await ask(.cancel(.with { $0.jobID = input.path.id; $0.photoNames = names })) {
        case .success(.ack): return .noContent(.init())
        case .success(let other): return Self.problem(.unexpected(.with { $0.body = other }))
        case .failure(let problem): return Self.problem(problem)
        }
    }

    func listWorkers(_ input: Operations.ListWorkers.Input) async throws -> Operations.ListWorkers.Output {
        switch await ask(.status(.init())) {
        case .success(.status(let status)): return .ok(.init(body: .json(.init(workers: status.workers.map(APIJSON.worker)))))
        case .success(let other): return Self.problem(.unexpected(.with { $0.body = other }))
        case .failure(let problem): return Self.problem(problem)
        }
    }

    func getStatus(_ input: Operations.GetStatus.Input) async throws -> Operations.GetStatus.Output {
        switch await ask(.status(.init())) {
        case .success(.status(let status)): return .ok(.init(body: .json(APIJSON.status(status))))
        case .success(let other): return Self.problem(.unexpected(.with { $0.body = other }))
        case .failure(let problem): return Self.problem(problem)
        }
    }

    /// Any operation's problem answer (every operation documents its problems as `default`).
    static func problem<Output: ProblemAnswerable>(_ problem: APIProblem) -> Output { .default(statusCode: problem.status, problem.response) }
}

/// The generated outputs, each with a `default` case for problems.
protocol ProblemAnswerable {
    static func `default`(statusCode: Int, _ problem: Components.Responses.Problem) -> Self
}

extension Operations.SubmitJob.Output: ProblemAnswerable {}
extension Operations.ListJobs.Output: ProblemAnswerable {}
extension Operations.GetJob.Output: ProblemAnswerable {}
extension Operations.SetViewport.Output: ProblemAnswerable {}
extension Operations.SuspendJob.Output: ProblemAnswerable {}
extension Operations.ResumeJob.Output: ProblemAnswerable {}
extension Operations.CancelJob.Output: ProblemAnswerable {}
extension Operations.ListWorkers.Output: ProblemAnswerable {}
extension Operations.GetStatus.Output: ProblemAnswerable {}
extension Operations.FollowJob.Output: ProblemAnswerable {}
extension Operations.GetPhotoOutput.Output: ProblemAnswerable {}
extension Operations.GetJobIndex.Output: ProblemAnswerable {}
