#include "cwebp_anim.h"
#include "cwebp_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>
#include <webp/mux.h>

static void mwebp_anim_message(char *message, size_t size, const char *what, const char *why) {
    if (message == NULL || size == 0) return;
    snprintf(message, size, "%s%s%s", what, why && *why ? ": " : "", why ? why : "");
}

/* ------------------------------------------------------------------ frames encoded apart */

/* The bounding box of the pixels that differ between two RGB canvases, its left and top
   rounded down to even (an animation frame's offset is stored halved); width 0 when none. */
static void mwebp_changed_rect(const uint8_t *a, const uint8_t *b, uint32_t width, uint32_t height, uint32_t *x,
                               uint32_t *y, uint32_t *w, uint32_t *h) {
    uint32_t x0 = width, y0 = height, x1 = 0, y1 = 0;
    int any = 0;
    size_t row_bytes = (size_t)width * 3;
    for (uint32_t row = 0; row < height; row++) {
        const uint8_t *ra = a + row * row_bytes, *rb = b + row * row_bytes;
        if (memcmp(ra, rb, row_bytes) == 0) continue;
        uint32_t left = 0, right = width - 1;
        while (memcmp(ra + left * 3, rb + left * 3, 3) == 0) left++;
        while (memcmp(ra + right * 3, rb + right * 3, 3) == 0) right--;
        if (!any) { y0 = row; any = 1; }
        y1 = row;
        if (left < x0) x0 = left;
        if (right > x1) x1 = right;
    }
    if (!any) { *x = *y = *w = *h = 0; return; }
    x0 &= ~1u;
    y0 &= ~1u;
    *x = x0;
    *y = y0;
    *w = x1 - x0 + 1;
    *h = y1 - y0 + 1;
}

int mwebp_anim_frame(const uint8_t *previous, const uint8_t *rgb, uint32_t width, uint32_t height, int lossless,
                     int quality, int effort, mwebp_frame *frame, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    memset(frame, 0, sizeof *frame);
    WebPConfig config;
    int level = effort < 0 ? 0 : effort > 9 ? 9 : effort;
    float q = (float)(quality < 0 ? 0 : quality > 100 ? 100 : quality);
    int configured = lossless ? WebPConfigInit(&config) && WebPConfigLosslessPreset(&config, level)
                              : WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, q);
    if (!lossless) config.method = level > 6 ? 6 : level;
    if (!configured || !WebPValidateConfig(&config)) {
        mwebp_anim_message(message, message_size, "invalid WebP settings (libwebp version mismatch?)", NULL);
        return MWEBP_ERROR;
    }
    uint32_t x = 0, y = 0, w = width, h = height;
    if (previous != NULL) {
        mwebp_changed_rect(previous, rgb, width, height, &x, &y, &w, &h);
        /* Nothing changed: one pixel that keeps what is shown holds the frame's time. */
        if (w == 0) { x = 0; y = 0; w = 1; h = 1; }
    }
    /* Lossless frames after the first blend over what is shown: a pixel that did not change
       is transparent, which costs almost nothing. Lossy ones replace their rectangle. */
    int blend = lossless && previous != NULL;
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        mwebp_anim_message(message, message_size, "libwebp version mismatch", NULL);
        return MWEBP_ERROR;
    }
    picture.use_argb = 1;
    picture.width = (int)w;
    picture.height = (int)h;
    if (!WebPPictureAlloc(&picture)) {
        mwebp_anim_message(message, message_size, "out of memory", NULL);
        return MWEBP_ERROR;
    }
    size_t row_bytes = (size_t)width * 3;
    for (uint32_t row = 0; row < h; row++) {
        const uint8_t *now = rgb + (y + row) * row_bytes + (size_t)x * 3;
        const uint8_t *before = previous ? previous + (y + row) * row_bytes + (size_t)x * 3 : NULL;
        uint32_t *out = picture.argb + (size_t)row * picture.argb_stride;
        for (uint32_t i = 0; i < w; i++) {
            const uint8_t *p = now + i * 3;
            if (blend && memcmp(p, before + i * 3, 3) == 0) {
                out[i] = 0;
            } else {
                out[i] = 0xFF000000u | ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
            }
        }
    }
    WebPMemoryWriter memory;
    WebPMemoryWriterInit(&memory);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &memory;
    int ok = WebPEncode(&config, &picture);
    WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&memory);
        mwebp_anim_message(message, message_size, "cannot encode a WebP frame", NULL);
        return MWEBP_ERROR;
    }
    frame->bytes = memory.mem;
    frame->size = memory.size;
    frame->x = x;
    frame->y = y;
    frame->width = w;
    frame->height = h;
    frame->blend = blend;
    return MWEBP_OK;
}

int mwebp_anim_assemble(uint32_t width, uint32_t height, const mwebp_frame *frames, const int *durations_ms, int count,
                        uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    *out = NULL;
    *out_size = 0;
    WebPMux *mux = WebPMuxNew();
    if (mux == NULL) {
        mwebp_anim_message(message, message_size, "out of memory", NULL);
        return MWEBP_ERROR;
    }
    WebPMuxError error = WEBP_MUX_OK;
    for (int i = 0; i < count && error == WEBP_MUX_OK; i++) {
        WebPMuxFrameInfo info;
        memset(&info, 0, sizeof info);
        info.bitstream.bytes = frames[i].bytes;
        info.bitstream.size = frames[i].size;
        info.x_offset = (int)frames[i].x;
        info.y_offset = (int)frames[i].y;
        info.duration = durations_ms[i];
        info.id = WEBP_CHUNK_ANMF;
        info.dispose_method = WEBP_MUX_DISPOSE_NONE;
        info.blend_method = frames[i].blend ? WEBP_MUX_BLEND : WEBP_MUX_NO_BLEND;
        error = WebPMuxPushFrame(mux, &info, 1);
    }
    WebPMuxAnimParams params = {0xFFFFFFFFu, 0}; /* background: opaque white (players mostly ignore it); loop forever */
    if (error == WEBP_MUX_OK) error = WebPMuxSetAnimationParams(mux, &params);
    if (error == WEBP_MUX_OK) error = WebPMuxSetCanvasSize(mux, (int)width, (int)height);
    WebPData data;
    WebPDataInit(&data);
    if (error == WEBP_MUX_OK) error = WebPMuxAssemble(mux, &data);
    WebPMuxDelete(mux);
    if (error != WEBP_MUX_OK) {
        WebPDataClear(&data);
        char code[32];
        snprintf(code, sizeof code, "WebPMux error %d", (int)error);
        mwebp_anim_message(message, message_size, "cannot assemble the WebP animation", code);
        return MWEBP_ERROR;
    }
    *out = (uint8_t *)data.bytes;
    *out_size = data.size;
    return MWEBP_OK;
}
