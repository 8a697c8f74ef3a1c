import Foundation
import LoopbackHTTP
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterWorker

/// Builds submit messages and follows jobs to their summary.
enum ClusterHarness {
    static func submit(_ photos: [(name: String, url: String)], out: URL, filters: [String] = ["sepia"], format: Photocluster_V1_OutputFormat = .keep) throws -> SubmitJob {
        var submit = SubmitJob()
        submit.label = "test"
        submit.outputDir = out.path
        // Tests here run several jobs into one directory; the guard against that is TenancyTests'.
        submit.replaceOutputs = true
        submit.format = format
        submit.quality = 90
        submit.filters = try filterSpecs(filters)
        submit.photos = photos.map { photo in Photocluster_V1_ManifestEntry.with { $0.name = photo.name; $0.url = photo.url } }
        return submit
    }

    /// Filters written as on the command line (`blur:sigma=2`), as the protocol carries them.
    static func filterSpecs(_ texts: [String]) throws -> [Photocluster_V1_FilterSpec] {
        try texts.map { Photocluster_V1_FilterSpec(try FilterSpec(parsing: $0)) }
    }

    /// Every sample photo as served by `server`.
    static func samples(on server: LoopbackHTTPServer) -> [(name: String, url: String)] {
        Repository.samplePhotoFiles.map { ($0, "\(server.baseURL)/\($0)") }
    }

    /// A server of the clock sample: at once, or under `/slow/` `chunk` bytes every `interval`.
    static func clockServer(slowChunk chunk: Int, every interval: TimeInterval) throws -> LoopbackHTTPServer {
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        return try LoopbackHTTPServer { request in
            request.path.hasPrefix("/slow/") ? HTTPResponse(body: clock, trickle: (chunk: chunk, interval: interval)) : HTTPResponse(body: clock)
        }
    }

    /// Submits and waits for the summary (nil if the stream ended without one).
    static func run(_ submit: SubmitJob, on client: ClusterClient) async throws -> (job: SubmittedJob, summary: JobSummary?, events: [JobEvent]) {
        let job = try await client.submit(submit)
        var events: [JobEvent] = []
        var summary: JobSummary?
        for await event in job.events {
            events.append(event)
            if case .finished(let finished) = event.body { summary = finished }
        }
        return (job, summary, events)
    }
}

extension JobSummary {
    func photo(named name: String) -> Photocluster_V1_PhotoStatus? {
        photos.first { $0.name == name }
    }
}
