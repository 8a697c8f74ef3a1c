import PhotoClusterCore
import PhotoClusterStorage
import XCTest

/// The lexical rules for S3 URLs and shared directories, which client, coordinator and worker share.
final class OutputPlaceTests: XCTestCase {
    func testS3URLsNameABucketAndAKeyTakenLiterally() throws {
        let location = try S3Location(parsing: "s3://photos-2026/holiday/a b%20c.jpg")
        XCTAssertEqual(location.bucket, "photos-2026")
        XCTAssertEqual(location.key, "holiday/a b%20c.jpg")
        XCTAssertEqual(location.description, "s3://photos-2026/holiday/a b%20c.jpg")
    }

    func testBadS3URLsSayWhatIsWrong() {
        let cases: [(String, String)] = [
            ("https://photos/cat.jpg", "does not start with s3://"),
            ("s3://photos", "names a bucket but no object key"),
            ("s3:///cat.jpg", "has no bucket name"),
            ("s3://ab/cat.jpg", "not 3 to 63 characters"),
            ("s3://Photos/cat.jpg", "only lowercase letters"),
            ("s3://evil.com:80#/cat.jpg", "only lowercase letters"),
            ("s3://-photos/cat.jpg", "start and end with a letter or a digit"),
            ("s3://a..b/cat.jpg", "empty or malformed label"),
            ("s3://10.0.0.1/cat.jpg", "looks like an IP address"),
            ("s3://photos/a\u{1}b.jpg", "control character"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try S3Location(parsing: text), text) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(text): \(error)")
                XCTAssertTrue("\(error)".contains(text), "the error names the URL: \(error)")
            }
        }
    }

    func testS3OutputPrefixesAreNormalisedAndNamesGoUnderThem() throws {
        XCTAssertEqual(try OutputPlace.s3(parsing: "s3://photos/out/2026/").location(of: "cat.jpg"), "s3://photos/out/2026/cat.jpg")
        XCTAssertEqual(try OutputPlace.s3(parsing: "s3://photos").location(of: "cat.jpg"), "s3://photos/cat.jpg")
        XCTAssertEqual(try OutputPlace.s3(parsing: "s3://photos/").description, "s3://photos/")
        for bad in ["s3://photos/a//b", "s3://photos/../b", "s3://photos/a/./b"] {
            XCTAssertThrowsError(try OutputPlace.s3(parsing: bad), bad) { XCTAssertTrue("\($0)".contains("segment"), "\($0)") }
        }
    }

    func testSharedDirectoriesMustBeAbsoluteWithoutDotComponents() throws {
        XCTAssertEqual(try OutputPlace.shared(parsing: "/mnt/photos//jobs/").description, "/mnt/photos/jobs")
        XCTAssertEqual(try OutputPlace.shared(parsing: "/mnt/photos").location(of: "cat.png"), "/mnt/photos/cat.png")
        XCTAssertThrowsError(try OutputPlace.shared(parsing: "photos/out")) { XCTAssertTrue("\($0)".contains("not an absolute path"), "\($0)") }
        XCTAssertThrowsError(try OutputPlace.shared(parsing: "/mnt/photos/../../etc")) { XCTAssertTrue("\($0)".contains("\"..\""), "\($0)") }
    }
}
