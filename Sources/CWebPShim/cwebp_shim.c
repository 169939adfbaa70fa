#include "cwebp_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>

static void mwebp_set_message(char *message, size_t size, const char *text) {
    if (message == NULL || size == 0) return;
    snprintf(message, size, "%s", text ? text : "");
}

static const char *mwebp_status_text(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OK: return "ok";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "damaged WebP (bitstream error)";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "WebP uses a feature libwebp does not support";
    case VP8_STATUS_SUSPENDED: return "WebP decode suspended";
    case VP8_STATUS_USER_ABORT: return "WebP decode aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "truncated WebP (data ends early)";
    }
    return "damaged WebP";
}

int mwebp_decode(const uint8_t *data, size_t size, const mwebp_limits *limits, mwebp_info *info,
                 uint8_t *out, size_t out_capacity, size_t out_stride, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    memset(info, 0, sizeof(*info));
    if (size < 12 || memcmp(data, "RIFF", 4) != 0 || memcmp(data + 8, "WEBP", 4) != 0) {
        mwebp_set_message(message, message_size, size == 0 ? "empty file" : "not a WebP (bad signature)");
        return MWEBP_ERROR;
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        mwebp_set_message(message, message_size, "libwebp version mismatch");
        return MWEBP_ERROR;
    }
    VP8StatusCode status = WebPGetFeatures(data, size, &config.input);
    if (status != VP8_STATUS_OK) {
        mwebp_set_message(message, message_size, mwebp_status_text(status));
        return MWEBP_ERROR;
    }
    info->width = (uint32_t)config.input.width;
    info->height = (uint32_t)config.input.height;
    info->has_alpha = config.input.has_alpha ? 1 : 0;
    info->lossless = config.input.format == 2 ? 1 : config.input.format == 1 ? 0 : -1;
    if (config.input.has_animation) {
        mwebp_set_message(message, message_size, "animated WebP (matsite decodes still WebP tiles)");
        return MWEBP_ERROR;
    }
    if (info->width == 0 || info->height == 0 || info->width > limits->max_width || info->height > limits->max_height) {
        char text[128];
        snprintf(text, sizeof text, "WebP is %ux%u pixels, outside the limit %ux%u",
                 info->width, info->height, limits->max_width, limits->max_height);
        mwebp_set_message(message, message_size, text);
        return MWEBP_ERROR;
    }
    if (out == NULL) return MWEBP_NEED_BUFFER;
    size_t row_bytes = (size_t)info->width * 4;
    if (out_stride < row_bytes || out_capacity < out_stride * (size_t)(info->height - 1) + row_bytes) {
        return MWEBP_NEED_BUFFER;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = (int)out_stride;
    /* libwebp checks that the last row ends inside size: give it exactly the rows' span. */
    config.output.u.RGBA.size = out_stride * (size_t)(info->height - 1) + row_bytes;
    status = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) {
        mwebp_set_message(message, message_size, mwebp_status_text(status));
        return MWEBP_ERROR;
    }
    /* A lossless bitstream can carry alpha values while its header says it uses none
       (found by fuzzing); Pillow, like the header, treats such a file as opaque. So does
       matsite: a tile that says it has no alpha is drawn opaque, whatever its stray bytes. */
    if (!info->has_alpha) {
        for (uint32_t y = 0; y < info->height; y++) {
            uint8_t *row = out + (size_t)y * out_stride;
            for (uint32_t x = 0; x < info->width; x++) row[(size_t)x * 4 + 3] = 255;
        }
    }
    return MWEBP_OK;
}

/* Both encoders: config set up by the caller, the picture imported, written to memory. */
static int mwebp_encode(WebPConfig *config, int use_argb, const uint8_t *rgba, uint32_t width, uint32_t height,
                        size_t stride, uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        mwebp_set_message(message, message_size, "libwebp version mismatch");
        return MWEBP_ERROR;
    }
    picture.use_argb = use_argb;
    picture.width = (int)width;
    picture.height = (int)height;
    if (!WebPPictureImportRGBA(&picture, rgba, (int)stride)) {
        WebPPictureFree(&picture);
        mwebp_set_message(message, message_size, "out of memory");
        return MWEBP_ERROR;
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(config, &picture);
    int code = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        char text[64];
        snprintf(text, sizeof text, "WebP encode failed (libwebp error %d)", code);
        mwebp_set_message(message, message_size, text);
        return MWEBP_ERROR;
    }
    *out = writer.mem;
    *out_size = writer.size;
    return MWEBP_OK;
}

int mwebp_encode_lossless(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int effort,
                          uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    *out = NULL;
    *out_size = 0;
    WebPConfig config;
    if (!WebPConfigInit(&config) || !WebPConfigLosslessPreset(&config, effort < 0 ? 0 : effort > 9 ? 9 : effort)) {
        mwebp_set_message(message, message_size, "libwebp version mismatch");
        return MWEBP_ERROR;
    }
    config.exact = 1;  /* same pixels: keep the RGB of fully transparent pixels */
    return mwebp_encode(&config, 1, rgba, width, height, stride, out, out_size, message, message_size);
}

int mwebp_encode_lossy(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int quality,
                       uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    *out = NULL;
    *out_size = 0;
    WebPConfig config;
    float q = (float)(quality < 0 ? 0 : quality > 100 ? 100 : quality);
    if (!WebPConfigPreset(&config, WEBP_PRESET_PHOTO, q)) {
        mwebp_set_message(message, message_size, "libwebp version mismatch");
        return MWEBP_ERROR;
    }
    config.method = 4;          /* libwebp's default balance of time and size */
    config.alpha_quality = 100; /* edges of a transparent area stay exact */
    if (!WebPValidateConfig(&config)) {
        mwebp_set_message(message, message_size, "invalid WebP settings");
        return MWEBP_ERROR;
    }
    return mwebp_encode(&config, 0, rgba, width, height, stride, out, out_size, message, message_size);
}

void mwebp_free(void *bytes) { WebPFree(bytes); }
