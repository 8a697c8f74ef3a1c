#include "colour.h"

#include <lcms2.h>
#include <stdlib.h>
#include <string.h>

struct ic_colour {
    cmsHTRANSFORM transform;
    ic_profile_kind kind;
};

/* Little CMS reports through a global handler; the codec's messages say what failed instead. */
static void quiet(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    (void)text;
}

/* Gray converted to "sRGB gray": sRGB's white and tone curve, one channel. */
static cmsHPROFILE srgb_gray_profile(void) {
    const cmsFloat64Number parameters[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsCIExyY white = {0.3127, 0.3290, 1.0};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, parameters);
    cmsHPROFILE profile = curve ? cmsCreateGrayProfile(&white, curve) : NULL;
    cmsFreeToneCurve(curve);
    return profile;
}

ic_profile_kind ic_profile_kind_of(ic_blob icc) {
    if (icc.bytes == NULL || icc.size == 0 || icc.size > UINT32_MAX) return IC_PROFILE_NONE;
    cmsSetLogErrorHandler(quiet);
    cmsHPROFILE profile = cmsOpenProfileFromMem(icc.bytes, (cmsUInt32Number)icc.size);
    if (profile == NULL) return IC_PROFILE_NONE;
    ic_profile_kind kind = IC_PROFILE_NONE;
    switch (cmsGetColorSpace(profile)) {
    case cmsSigRgbData: kind = IC_PROFILE_RGB; break;
    case cmsSigGrayData: kind = IC_PROFILE_GRAY; break;
    case cmsSigCmykData: kind = IC_PROFILE_CMYK; break;
    default: break;
    }
    cmsCloseProfile(profile);
    return kind;
}

ic_colour *ic_colour_open(ic_blob icc, int adobe_inverted) {
    ic_profile_kind kind = ic_profile_kind_of(icc);
    if (kind == IC_PROFILE_NONE) return NULL;
    cmsSetLogErrorHandler(quiet);
    cmsHPROFILE input = cmsOpenProfileFromMem(icc.bytes, (cmsUInt32Number)icc.size);
    cmsHPROFILE output = kind == IC_PROFILE_GRAY ? srgb_gray_profile() : cmsCreate_sRGBProfile();
    cmsHTRANSFORM transform = NULL;
    if (input != NULL && output != NULL) {
        switch (kind) {
        case IC_PROFILE_RGB:
            transform = cmsCreateTransform(input, TYPE_RGBA_8, output, TYPE_RGBA_8, INTENT_PERCEPTUAL, cmsFLAGS_COPY_ALPHA);
            break;
        case IC_PROFILE_CMYK:
            /* Adobe's files store the inks inverted (0 is full ink). */
            transform = cmsCreateTransform(input, adobe_inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8, output, TYPE_RGBA_8,
                                           INTENT_PERCEPTUAL, 0);
            break;
        default:
            transform = cmsCreateTransform(input, TYPE_GRAY_8, output, TYPE_GRAY_8, INTENT_PERCEPTUAL, 0);
            break;
        }
    }
    if (input) cmsCloseProfile(input);
    if (output) cmsCloseProfile(output);
    ic_colour *colour = transform ? malloc(sizeof *colour) : NULL;
    if (colour == NULL) {
        if (transform) cmsDeleteTransform(transform);
        return NULL;
    }
    colour->transform = transform;
    colour->kind = kind;
    return colour;
}

ic_profile_kind ic_colour_kind(const ic_colour *colour) { return colour->kind; }

void ic_colour_apply(ic_colour *colour, uint8_t *pixels, size_t pixel_count) {
    if (colour->kind == IC_PROFILE_GRAY) {
        /* One channel: through a row of gray, written back to r, g and b. */
        uint8_t row[4096];
        for (size_t done = 0; done < pixel_count; done += sizeof row) {
            size_t count = pixel_count - done < sizeof row ? pixel_count - done : sizeof row;
            uint8_t *p = pixels + done * 4;
            for (size_t i = 0; i < count; i++) row[i] = p[i * 4];
            cmsDoTransform(colour->transform, row, row, (cmsUInt32Number)count);
            for (size_t i = 0; i < count; i++) p[i * 4] = p[i * 4 + 1] = p[i * 4 + 2] = row[i];
        }
        return;
    }
    /* In place: the input and output formats are both four bytes a pixel. */
    for (size_t done = 0; done < pixel_count; done += (size_t)1 << 20) {
        size_t count = pixel_count - done < ((size_t)1 << 20) ? pixel_count - done : ((size_t)1 << 20);
        cmsDoTransform(colour->transform, pixels + done * 4, pixels + done * 4, (cmsUInt32Number)count);
    }
    if (colour->kind == IC_PROFILE_CMYK)
        for (size_t i = 0; i < pixel_count; i++) pixels[i * 4 + 3] = 255;
}

void ic_colour_close(ic_colour *colour) {
    if (colour == NULL) return;
    cmsDeleteTransform(colour->transform);
    free(colour);
}

ic_status ic_convert_to_srgb(uint8_t *pixels, size_t pixel_count, ic_blob icc, char *message, size_t message_size) {
    ic_colour *colour = ic_colour_open(icc, 0);
    if (colour == NULL || colour->kind == IC_PROFILE_CMYK) {
        ic_colour_close(colour);
        ic_set_message(message, message_size, "the photo's ICC profile cannot convert its pixels to sRGB");
        return IC_UNSUPPORTED;
    }
    ic_colour_apply(colour, pixels, pixel_count);
    ic_colour_close(colour);
    return IC_OK;
}
