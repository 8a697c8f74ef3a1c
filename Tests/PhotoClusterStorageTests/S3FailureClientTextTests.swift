@testable import PhotoClusterStorage
import XCTest

/// What a client is told about an S3 failure: the object, the kind of failure and what to do;
/// never S3's own words or a key id.
final class S3FailureClientTextTests: XCTestCase {
    func testClientsHearTheObjectAndWhatToDo() {
        let denied = S3Failure.clientMessage("s3://photos/cat.jpg", action: "s3:GetObject", status: 403, code: "InvalidAccessKeyId", transient: false)
        XCTAssertEqual(denied, "s3://photos/cat.jpg could not be read: access was denied (HTTP 403); ask the operator to check the cluster's S3 "
            + "credentials and their access to it (the node's log has the details)")
        XCTAssertEqual(S3Failure.clientMessage("s3://photos/out/cat.jpg", action: "s3:PutObject", status: 404, code: "NoSuchBucket", transient: false),
                       "s3://photos/out/cat.jpg could not be written: there is no such object or bucket (HTTP 404); check the URL")
        XCTAssertEqual(S3Failure.clientMessage("s3://photos/cat.jpg", action: "s3:GetObject", status: 503, code: "SlowDown", transient: true),
                       "s3://photos/cat.jpg could not be read: S3 was unavailable (HTTP 503); try again later")
        XCTAssertEqual(S3Failure.clientMessage("s3://photos/cat.jpg", action: "s3:GetObject", status: 400, code: "InvalidRequest", transient: false),
                       "s3://photos/cat.jpg could not be read: S3 refused the request (HTTP 400); ask the operator (the node's log has the details)")
    }
}
