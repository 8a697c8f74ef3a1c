import Foundation
import PhotoClusterCore
@testable import PhotoClusterStorage
import XCTest

/// Settings from the environment variables every S3 tool reads, and the URLs they make.
final class S3ConfigurationTests: XCTestCase {
    func testACustomEndpointIsAddressedPathStyleWithCredentialsAndRegion() throws {
        let configuration = try S3Configuration.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG", "AWS_SESSION_TOKEN": "token-1",
            "AWS_REGION": "eu-west-3", "AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_ENDPOINT_URL_S3": "http://10.0.0.5:9000/",
        ])
        XCTAssertEqual(configuration.region, "eu-west-3")
        XCTAssertEqual(configuration.credentials?.accessKeyID, "AKIDEXAMPLE")
        XCTAssertTrue(configuration.credentials?.hasSessionToken == true)
        // AWS_ENDPOINT_URL_S3 wins over AWS_ENDPOINT_URL.
        XCTAssertEqual(configuration.url(of: S3Location(bucket: "photos", key: "a b/ü+.jpg")), "http://10.0.0.5:9000/photos/a%20b/%C3%BC%2B.jpg")
        XCTAssertEqual(configuration.url(of: S3Location(bucket: "photos", key: "k"), query: [("uploadId", "a/b="), ("partNumber", "2")]),
                       "http://10.0.0.5:9000/photos/k?partNumber=2&uploadId=a%2Fb%3D")
    }

    func testAWSItselfIsAddressedVirtualHostedStyleUnlessTheBucketHasDots() throws {
        let configuration = try S3Configuration.fromEnvironment(["AWS_DEFAULT_REGION": "us-west-2"])
        XCTAssertNil(configuration.credentials)
        XCTAssertEqual(configuration.url(of: S3Location(bucket: "photos", key: "cat.jpg")), "https://photos.s3.us-west-2.amazonaws.com/cat.jpg")
        XCTAssertEqual(configuration.url(of: S3Location(bucket: "my.photos", key: "cat.jpg")), "https://s3.us-west-2.amazonaws.com/my.photos/cat.jpg")
        XCTAssertEqual(try S3Configuration.fromEnvironment([:]).region, "us-east-1")
    }

    func testHalfACredentialOrABadEndpointIsRefusedNamingTheVariable() {
        XCTAssertThrowsError(try S3Configuration.fromEnvironment(["AWS_ACCESS_KEY_ID": "AKID"])) {
            XCTAssertTrue("\($0)".contains("AWS_SECRET_ACCESS_KEY is not"), "\($0)")
        }
        XCTAssertThrowsError(try S3Configuration.fromEnvironment(["AWS_SECRET_ACCESS_KEY": "s"])) {
            XCTAssertTrue("\($0)".contains("AWS_ACCESS_KEY_ID is not"), "\($0)")
        }
        XCTAssertThrowsError(try S3Configuration.fromEnvironment(["AWS_ENDPOINT_URL_S3": "ftp://host"])) {
            XCTAssertTrue("\($0)".contains("AWS_ENDPOINT_URL_S3=ftp://host"), "\($0)")
        }
    }

    func testNeitherTheSecretNorTheTokenAppearInDescriptions() throws {
        let configuration = try S3Configuration.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "very-secret-key", "AWS_SESSION_TOKEN": "secret-token",
        ])
        let text = "\(configuration) \(String(describing: configuration.credentials)) \(configuration.credentials!.signing(region: "us-east-1"))"
        XCTAssertTrue(text.contains("AKIDEXAMPLE"), text)
        XCTAssertFalse(text.contains("very-secret-key"), text)
        XCTAssertFalse(text.contains("secret-token"), text)
        var dumped = ""
        dump(configuration, to: &dumped)
        dump(configuration.credentials!.signing(region: "us-east-1"), to: &dumped)
        XCTAssertTrue(dumped.contains("AKIDEXAMPLE"), dumped)
        XCTAssertFalse(dumped.contains("very-secret-key"), dumped)
        XCTAssertFalse(dumped.contains("secret-token"), dumped)
    }

    func testS3ErrorDocumentsAreReadAndEscaped() {
        let document = Data("<?xml version=\"1.0\"?>\n<Error><Code>NoSuchKey</Code><Message>a &amp; b &lt;c&gt;</Message></Error>".utf8)
        XCTAssertEqual(S3XML.text(of: "Code", in: document), "NoSuchKey")
        XCTAssertEqual(S3XML.text(of: "Message", in: document), "a & b <c>")
        XCTAssertTrue(S3XML.hasRoot("Error", in: document))
        XCTAssertFalse(S3XML.hasRoot("Error", in: Data("<CompleteMultipartUploadResult><Error>x</Error></CompleteMultipartUploadResult>".utf8)))
        XCTAssertEqual(S3XML.escape("\"a\"&<b>"), "&quot;a&quot;&amp;&lt;b&gt;")
    }
}
