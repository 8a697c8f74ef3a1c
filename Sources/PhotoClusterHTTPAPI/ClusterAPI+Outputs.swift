import Foundation
import OpenAPIRuntime
import PhotoClusterProto

/// A finished photo's file and a finished job's index.json, for callers who may see the job.
extension ClusterAPI {
    func getPhotoOutput(_ input: Operations.GetPhotoOutput.Input) async throws -> Operations.GetPhotoOutput.Output {
        let (jobID, name) = (input.path.id, input.path.name)
        let photo: Photocluster_V1_PhotoStatus
        switch await coordinator.photoStatus(of: jobID, named: name, from: APICaller.current.requester) {
        case .found(let status): photo = status
        case .refused(let refusal): return Self.problem(APIProblem(refusal))
        }
        guard photo.state == .done else {
            let why = photo.state == .failed || photo.state == .cancelled ? "it \(photo.state == .failed ? "failed" : "was cancelled"): \(photo.reason)" : "it has not finished yet"
            return Self.problem(APIProblem(404, "photo \"\(name)\" of job \(jobID) has no output: \(why)"))
        }
        guard photo.outputPath.hasPrefix("/") else {
            return Self.problem(APIProblem(404, "photo \"\(name)\" of job \(jobID) was stored at \(photo.outputPath) by its worker; fetch it from there"))
        }
        let body: HTTPBody
        do {
            body = HTTPBody(try Data(contentsOf: URL(fileURLWithPath: photo.outputPath)))
        } catch {
            return Self.problem(APIProblem(404, "photo \"\(name)\" of job \(jobID): its output \(photo.outputPath) cannot be read here (\((error as NSError).localizedDescription))"))
        }
        switch (photo.outputPath as NSString).pathExtension.lowercased() {
        case "png": return .ok(.init(body: .png(body)))
        case "webp": return .ok(.init(body: .imageWebp(body)))
        case "avif": return .ok(.init(body: .imageAvif(body)))
        default: return .ok(.init(body: .jpeg(body)))
        }
    }

    func getJobIndex(_ input: Operations.GetJobIndex.Input) async throws -> Operations.GetJobIndex.Output {
        let jobID = input.path.id
        let job: Photocluster_V1_JobSummary
        switch await summary(of: jobID) {
        case .success(let summary): job = summary
        case .failure(let problem): return Self.problem(problem)
        }
        guard APIJSON.isOver(job.phase) else {
            return Self.problem(APIProblem(404, "job \(jobID) has not finished: its index.json is written when it ends"))
        }
        guard job.outputDir.hasPrefix("/") else {
            return Self.problem(APIProblem(404, "job \(jobID)'s index.json is in \(job.outputDir), where its workers stored the outputs; fetch it from there"))
        }
        let file = URL(fileURLWithPath: job.outputDir).appendingPathComponent("index.json")
        do {
            let index = try JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(contentsOf: file))
            return .ok(.init(body: .json(index)))
        } catch {
            return Self.problem(APIProblem(404, "job \(jobID): \(file.path) cannot be read here (\((error as NSError).localizedDescription))"))
        }
    }
}
