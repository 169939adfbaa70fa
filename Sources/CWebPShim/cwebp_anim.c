#include "cwebp_anim.h"
#include "cwebp_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>
#include <webp/mux.h>

struct mwebp_anim {
    WebPAnimEncoder *encoder;
    WebPConfig config;
    uint32_t width;
    uint32_t height;
};

static void mwebp_anim_message(char *message, size_t size, const char *what, const char *why) {
    if (message == NULL || size == 0) return;
    snprintf(message, size, "%s%s%s", what, why && *why ? ": " : "", why ? why : "");
}

int mwebp_anim_begin(uint32_t width, uint32_t height, int lossless, int quality, int effort, mwebp_anim **out,
                     char *message, size_t message_size) {
    *out = NULL;
    if (message && message_size) message[0] = 0;
    mwebp_anim *anim = calloc(1, sizeof *anim);
    if (anim == NULL) {
        mwebp_anim_message(message, message_size, "out of memory", NULL);
        return MWEBP_ERROR;
    }
    int level = effort < 0 ? 0 : effort > 9 ? 9 : effort;
    float q = (float)(quality < 0 ? 0 : quality > 100 ? 100 : quality);
    int configured = lossless ? WebPConfigInit(&anim->config) && WebPConfigLosslessPreset(&anim->config, level)
                              : WebPConfigPreset(&anim->config, WEBP_PRESET_DEFAULT, q);
    if (!lossless) anim->config.method = level > 6 ? 6 : level;
    if (!configured || !WebPValidateConfig(&anim->config)) {
        free(anim);
        mwebp_anim_message(message, message_size, "invalid WebP settings (libwebp version mismatch?)", NULL);
        return MWEBP_ERROR;
    }
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options)) {
        free(anim);
        mwebp_anim_message(message, message_size, "libwebpmux version mismatch", NULL);
        return MWEBP_ERROR;
    }
    options.anim_params.loop_count = 0; /* forever */
    anim->encoder = WebPAnimEncoderNew((int)width, (int)height, &options);
    if (anim->encoder == NULL) {
        free(anim);
        mwebp_anim_message(message, message_size, "cannot start a WebP animation (size or memory)", NULL);
        return MWEBP_ERROR;
    }
    anim->width = width;
    anim->height = height;
    *out = anim;
    return MWEBP_OK;
}

int mwebp_anim_add(mwebp_anim *anim, const uint8_t *rgb, size_t stride, int timestamp_ms, char *message,
                   size_t message_size) {
    if (message && message_size) message[0] = 0;
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        mwebp_anim_message(message, message_size, "libwebp version mismatch", NULL);
        return MWEBP_ERROR;
    }
    picture.use_argb = 1;
    picture.width = (int)anim->width;
    picture.height = (int)anim->height;
    if (!WebPPictureImportRGB(&picture, rgb, (int)stride)) {
        WebPPictureFree(&picture);
        mwebp_anim_message(message, message_size, "out of memory", NULL);
        return MWEBP_ERROR;
    }
    int ok = WebPAnimEncoderAdd(anim->encoder, &picture, timestamp_ms, &anim->config);
    WebPPictureFree(&picture);
    if (!ok) {
        mwebp_anim_message(message, message_size, "cannot add a WebP frame", WebPAnimEncoderGetError(anim->encoder));
        return MWEBP_ERROR;
    }
    return MWEBP_OK;
}

int mwebp_anim_finish(mwebp_anim *anim, int end_ms, uint8_t **out, size_t *out_size, char *message,
                      size_t message_size) {
    if (message && message_size) message[0] = 0;
    *out = NULL;
    *out_size = 0;
    WebPData data;
    WebPDataInit(&data);
    int ok = WebPAnimEncoderAdd(anim->encoder, NULL, end_ms, NULL) && WebPAnimEncoderAssemble(anim->encoder, &data);
    if (!ok) {
        mwebp_anim_message(message, message_size, "cannot assemble the WebP animation",
                           WebPAnimEncoderGetError(anim->encoder));
        WebPDataClear(&data);
        mwebp_anim_discard(anim);
        return MWEBP_ERROR;
    }
    *out = (uint8_t *)data.bytes;
    *out_size = data.size;
    mwebp_anim_discard(anim);
    return MWEBP_OK;
}

void mwebp_anim_discard(mwebp_anim *anim) {
    if (anim == NULL) return;
    WebPAnimEncoderDelete(anim->encoder);
    free(anim);
}
