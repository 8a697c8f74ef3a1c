import Foundation
import PhotoClusterCore
import PhotoClusterPlugins
import PhotoClusterTestSupport
import XCTest

/// Filters that break the ABI's rules at run time fail their photo instead of the worker.
final class MisbehavingPluginTests: XCTestCase {
    var directory: URL!
    var registry = FilterRegistry()

    override func setUpWithError() throws {
        directory = Repository.temporaryDirectory("plugins")
        let plugin = try TestPlugins.build("misbehaving", """
            #include <stdlib.h>
            #include <string.h>
            static int bad_size(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                                void *context, char *error, size_t error_size) {
                out->pixels = malloc(16); out->width = -1; out->height = 2;
                return PC_OK;
            }
            static int odd_status(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                                  void *context, char *error, size_t error_size) { return 42; }
            static int silent_error(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                                    void *context, char *error, size_t error_size) { return PC_ERROR; }
            static int long_error(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                                  void *context, char *error, size_t error_size) {
                memset(error, 'x', error_size);  /* no NUL */
                return PC_ERROR;
            }
            static int same_buffer(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                                   void *context, char *error, size_t error_size) {
                image->pixels[0] = 1;
                *out = *image;
                return PC_OK;
            }
            static int cancel_with_buffer(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                                          void *context, char *error, size_t error_size) {
                out->pixels = malloc(16); out->width = 2; out->height = 2;
                return is_cancelled(context) ? PC_CANCELLED : PC_OK;
            }
            static const pc_filter_def filters[] = {
                {"bad-size", "1", NULL, NULL, 0, bad_size},
                {"odd-status", "1", NULL, NULL, 0, odd_status},
                {"silent-error", "1", NULL, NULL, 0, silent_error},
                {"long-error", "1", NULL, NULL, 0, long_error},
                {"same-buffer", "1", NULL, NULL, 0, same_buffer},
                {"cancel-with-buffer", "1", NULL, NULL, 0, cancel_with_buffer},
            };
            static const pc_plugin plugin = {PC_PLUGIN_ABI_VERSION, "misbehaving", filters, 6};
            const pc_plugin *photocluster_plugin_entry(void) { return &plugin; }
            """, into: directory)
        XCTAssertEqual(PluginLoader.load(file: plugin, into: &registry).refused, [])
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    func run(_ name: String, isCancelled: () -> Bool = { false }) throws -> (input: RGBAImage, output: RGBAImage) {
        let filter = try registry.resolve(name)
        let image = TestImages.varied()
        return (image, try filter.stage.apply(to: image, parameters: filter.parameters, isCancelled: isCancelled))
    }

    func assertFailure(_ name: String, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try run(name), file: file, line: line) { error in
            XCTAssertEqual((error as? FilterFailure)?.filter, name, file: file, line: line)
            XCTAssertEqual((error as? FilterFailure)?.reason, reason, file: file, line: line)
        }
    }

    func testAnInvalidNewImageIsAFailure() {
        assertFailure("bad-size", "the plugin returned an image of invalid size -1x2")
    }

    func testAnUnknownStatusIsAFailure() {
        assertFailure("odd-status", "the plugin returned unknown status 42")
    }

    func testAnErrorWithoutMessageSaysSo() {
        assertFailure("silent-error", "the plugin failed without a message")
    }

    func testAnUnterminatedMessageIsCutAtTheBuffer() {
        assertFailure("long-error", String(repeating: "x", count: 1024))
    }

    func testHandingBackTheInputBufferCountsAsInPlace() throws {
        let (input, output) = try run("same-buffer")
        XCTAssertTrue(output === input)
        XCTAssertEqual(output.pixels[0], 1)
    }

    func testABufferLeftWithACancellationIsDropped() throws {
        XCTAssertThrowsError(try run("cancel-with-buffer") { true }) { error in
            XCTAssertTrue(error is FilterCancelled, "\(error)")
        }
        XCTAssertEqual(try run("cancel-with-buffer").output.byteCount, 16)
    }
}
