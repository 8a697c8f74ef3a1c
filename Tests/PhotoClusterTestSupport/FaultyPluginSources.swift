/// C sources of plugins that misbehave for real, for the tests of plugin isolation: each is a
/// whole plugin (`CPluginCompiler.build`).
public enum FaultyPluginSources {
    /// `poison`: dereferences NULL on photos `width` pixels wide (SIGSEGV), adds `amount` to red
    /// on the others. `abort`: calls abort() on photos `width` wide (SIGABRT). `double-free`:
    /// corrupts its heap on photos `width` wide (glibc aborts).
    public static let poison = """
        #include "photocluster_plugin.h"
        #include <stdlib.h>
        #include <string.h>

        static int poison(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                          void *context, char *error, size_t error_size) {
            if (image->width == (int32_t)params[0]) *(volatile int *)0 = 1;
            size_t count = (size_t)image->width * image->height;
            for (size_t i = 0; i < count; i++) {
                int v = image->pixels[i * 4] + (int)params[1];
                image->pixels[i * 4] = v > 255 ? 255 : v;
            }
            return PC_OK;
        }

        static int abort_on(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                            void *context, char *error, size_t error_size) {
            if (image->width == (int32_t)params[0]) abort();
            return PC_OK;
        }

        static int double_free(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                               void *context, char *error, size_t error_size) {
            if (image->width == (int32_t)params[0]) {
                char *volatile block = malloc(64);
                free(block);
                free(block);
                void *again = malloc(64);  /* glibc notices the corruption by now at the latest */
                free(again);
            }
            return PC_OK;
        }

        static const pc_param_schema poison_params[] = {
            {"width", PC_PARAM_INT, 0, 100000, 0, "crash on photos this many pixels wide"},
            {"amount", PC_PARAM_INT, 0, 255, 10, "added to red"},
        };
        static const pc_param_schema width_param[] = {{"width", PC_PARAM_INT, 0, 100000, 0, "fail on photos this many pixels wide"}};
        static const pc_filter_def filters[] = {
            {"poison", "1", "crashes on photos of one width", poison_params, 2, poison},
            {"abort", "1", "aborts on photos of one width", width_param, 1, abort_on},
            {"double-free", "1", "corrupts its heap on photos of one width", width_param, 1, double_free},
        };
        static const pc_plugin plugin = {PC_PLUGIN_ABI_VERSION, "poison", filters, 3};
        PC_PLUGIN_EXPORT const pc_plugin *photocluster_plugin_entry(void) { return &plugin; }
        """

    /// `spin`: never returns and never looks at `is_cancelled`. `patient`: runs until cancelled,
    /// checking `is_cancelled` every millisecond. `nap`: sleeps `ms` milliseconds (or until
    /// cancelled), then leaves the photo as it was. `double`: makes a new image twice as wide,
    /// each pixel repeated. `hog`: takes `mb` megabytes and writes to every page, then waits to be
    /// cancelled (a leak, until something kills it).
    public static let slow = """
        #include "photocluster_plugin.h"
        #include <stdlib.h>
        #include <string.h>
        #include <time.h>

        static int spin(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                        void *context, char *error, size_t error_size) {
            volatile unsigned long turns = 0;
            for (;;) turns++;
            return PC_OK;
        }

        static int patient(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                           void *context, char *error, size_t error_size) {
            struct timespec pause = {0, 1000000};
            while (!is_cancelled(context)) nanosleep(&pause, NULL);
            return PC_CANCELLED;
        }

        static int nap(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                       void *context, char *error, size_t error_size) {
            struct timespec pause = {0, 1000000};
            for (int i = 0; i < (int)params[0]; i++) {
                if (is_cancelled(context)) return PC_CANCELLED;
                nanosleep(&pause, NULL);
            }
            return PC_OK;
        }

        static int hog(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                       void *context, char *error, size_t error_size) {
            for (int i = 0; i < (int)params[0]; i++) {
                char *block = malloc(1 << 20);
                if (block != NULL) memset(block, i, 1 << 20);  /* never freed */
            }
            struct timespec pause = {0, 1000000};
            while (!is_cancelled(context)) nanosleep(&pause, NULL);
            return PC_CANCELLED;
        }

        static int double_width(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                                void *context, char *error, size_t error_size) {
            size_t width = (size_t)image->width * 2, height = (size_t)image->height;
            uint32_t *pixels = malloc(width * height * 4);
            if (pixels == NULL) { strncpy(error, "out of memory", error_size); return PC_ERROR; }
            const uint32_t *source = (const uint32_t *)image->pixels;
            for (size_t y = 0; y < height; y++)
                for (size_t x = 0; x < width; x++) pixels[y * width + x] = source[y * image->width + x / 2];
            out->pixels = (uint8_t *)pixels;
            out->width = (int32_t)width;
            out->height = (int32_t)height;
            return PC_OK;
        }

        static const pc_param_schema nap_params[] = {{"ms", PC_PARAM_INT, 0, 60000, 100, "milliseconds to sleep"}};
        static const pc_param_schema hog_params[] = {{"mb", PC_PARAM_INT, 0, 4096, 64, "megabytes to take"}};
        static const pc_filter_def filters[] = {
            {"spin", "1", "never returns", NULL, 0, spin},
            {"patient", "1", "waits for its cancellation", NULL, 0, patient},
            {"nap", "1", "sleeps, then leaves the photo as it was", nap_params, 1, nap},
            {"double", "1", "twice as wide", NULL, 0, double_width},
            {"hog", "1", "takes memory and keeps it", hog_params, 1, hog},
        };
        static const pc_plugin plugin = {PC_PLUGIN_ABI_VERSION, "slow", filters, 5};
        PC_PLUGIN_EXPORT const pc_plugin *photocluster_plugin_entry(void) { return &plugin; }
        """

    /// A plugin whose initialiser crashes when the library is loaded.
    public static let crashesWhenLoaded = """
        #include "photocluster_plugin.h"
        __attribute__((constructor)) static void start(void) { *(volatile int *)0 = 1; }
        static int keep(pc_image *image, const double *params, pc_image *out, pc_is_cancelled_fn is_cancelled,
                        void *context, char *error, size_t error_size) { return PC_OK; }
        static const pc_filter_def filters[] = {{"never-loaded", "1", NULL, NULL, 0, keep}};
        static const pc_plugin plugin = {PC_PLUGIN_ABI_VERSION, "crashes-when-loaded", filters, 1};
        PC_PLUGIN_EXPORT const pc_plugin *photocluster_plugin_entry(void) { return &plugin; }
        """
}
