#include "cgif_shim.h"

#include <gif_lib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mgif_writer {
    GifFileType *gif;
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    int failed_alloc;
    uint32_t width;
    uint32_t height;
};

static void mgif_set_message(char *message, size_t size, const char *what, int code) {
    if (message == NULL || size == 0) return;
    const char *reason = code ? GifErrorString(code) : NULL;
    snprintf(message, size, "%s%s%s", what, reason ? ": " : "", reason ? reason : "");
}

/* giflib's output callback: the file grows in memory. */
static int mgif_write(GifFileType *gif, const GifByteType *data, int length) {
    mgif_writer *w = (mgif_writer *)gif->UserData;
    if (length <= 0) return length;
    if (w->size + (size_t)length > w->capacity) {
        size_t capacity = w->capacity ? w->capacity : 1 << 16;
        while (capacity < w->size + (size_t)length) capacity *= 2;
        uint8_t *grown = realloc(w->bytes, capacity);
        if (grown == NULL) {
            w->failed_alloc = 1;
            return 0;
        }
        w->bytes = grown;
        w->capacity = capacity;
    }
    memcpy(w->bytes + w->size, data, (size_t)length);
    w->size += (size_t)length;
    return length;
}

/* A giflib colour map of `colors` RGB triples, padded with black to a power of two. */
static ColorMapObject *mgif_map(const uint8_t *palette_rgb, int colors) {
    int size = 2;
    while (size < colors) size *= 2;
    GifColorType table[256];
    memset(table, 0, sizeof table);
    for (int i = 0; i < colors; i++) {
        table[i].Red = palette_rgb[i * 3];
        table[i].Green = palette_rgb[i * 3 + 1];
        table[i].Blue = palette_rgb[i * 3 + 2];
    }
    return GifMakeMapObject(size, table);
}

/* A GIF89a being written to memory, its header and screen descriptor written, with
   `palette_rgb` (`colors` RGB triples) as its global colour table when given. */
static mgif_writer *mgif_open(uint32_t width, uint32_t height, const uint8_t *palette_rgb, int colors, char *message,
                              size_t message_size) {
    if (message && message_size) message[0] = 0;
    if (width == 0 || height == 0 || width > 65535 || height > 65535) {
        mgif_set_message(message, message_size, "a GIF is at most 65535 pixels on a side", 0);
        return NULL;
    }
    if (palette_rgb != NULL && (colors < 1 || colors > 256)) {
        mgif_set_message(message, message_size, "a GIF colour table holds 1 to 256 colours", 0);
        return NULL;
    }
    mgif_writer *w = calloc(1, sizeof *w);
    if (w == NULL) {
        mgif_set_message(message, message_size, "out of memory", 0);
        return NULL;
    }
    w->width = width;
    w->height = height;
    int error = 0;
    w->gif = EGifOpen(w, mgif_write, &error);
    if (w->gif == NULL) {
        free(w);
        mgif_set_message(message, message_size, "cannot start a GIF", error);
        return NULL;
    }
    EGifSetGifVersion(w->gif, true);
    ColorMapObject *map = palette_rgb ? mgif_map(palette_rgb, colors) : NULL;
    int ok = (palette_rgb == NULL || map != NULL) && EGifPutScreenDesc(w->gif, (int)width, (int)height, 8, 0, map) != GIF_ERROR;
    GifFreeMapObject(map);
    if (!ok) {
        mgif_set_message(message, message_size, "cannot write the GIF header", w->gif->Error);
        mgif_discard(w);
        return NULL;
    }
    return w;
}

int mgif_begin(uint32_t width, uint32_t height, const uint8_t *palette_rgb, int colors, mgif_writer **out,
               char *message, size_t message_size) {
    /* The loop's colour table, when given: frames without a table of their own use it. */
    mgif_writer *w = mgif_open(width, height, palette_rgb, colors, message, message_size);
    *out = NULL;
    if (w == NULL) return MGIF_ERROR;
    /* NETSCAPE2.0 application extension: loop count 0, forever. */
    static const GifByteType loop[3] = {1, 0, 0};
    if (EGifPutExtensionLeader(w->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(w->gif, 11, "NETSCAPE2.0") == GIF_ERROR ||
        EGifPutExtensionBlock(w->gif, 3, loop) == GIF_ERROR || EGifPutExtensionTrailer(w->gif) == GIF_ERROR) {
        mgif_set_message(message, message_size, "cannot write the GIF loop extension", w->gif->Error);
        mgif_discard(w);
        return MGIF_ERROR;
    }
    *out = w;
    return MGIF_OK;
}

int mgif_add_frame(mgif_writer *w, const uint8_t *indices, uint32_t left, uint32_t top, uint32_t width,
                   uint32_t height, const uint8_t *palette_rgb, int colors, int transparent, int delay_cs,
                   char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    if ((palette_rgb != NULL && (colors < 1 || colors > 256)) || width == 0 || height == 0 || left + width > w->width ||
        top + height > w->height) {
        mgif_set_message(message, message_size, "GIF frame outside the image or with 0 or over 256 colours", 0);
        return MGIF_ERROR;
    }
    GraphicsControlBlock gcb;
    gcb.DisposalMode = DISPOSE_DO_NOT;
    gcb.UserInputFlag = false;
    gcb.DelayTime = delay_cs < 0 ? 0 : delay_cs > 65535 ? 65535 : delay_cs;
    gcb.TransparentColor = transparent >= 0 && transparent < colors ? transparent : NO_TRANSPARENT_COLOR;
    GifByteType extension[4];
    size_t length = EGifGCBToExtension(&gcb, extension);
    if (EGifPutExtension(w->gif, GRAPHICS_EXT_FUNC_CODE, (int)length, extension) == GIF_ERROR) {
        mgif_set_message(message, message_size, "cannot write a GIF frame's timing", w->gif->Error);
        return MGIF_ERROR;
    }
    /* Without a table of its own, the frame uses the loop's. */
    ColorMapObject *map = NULL;
    if (palette_rgb != NULL && (map = mgif_map(palette_rgb, colors)) == NULL) {
        mgif_set_message(message, message_size, "out of memory", 0);
        return MGIF_ERROR;
    }
    int ok = EGifPutImageDesc(w->gif, (int)left, (int)top, (int)width, (int)height, false, map) != GIF_ERROR;
    GifFreeMapObject(map);
    for (uint32_t y = 0; ok && y < height; y++) {
        ok = EGifPutLine(w->gif, (GifPixelType *)(indices + (size_t)y * width), (int)width) != GIF_ERROR;
    }
    if (!ok || w->failed_alloc) {
        mgif_set_message(message, message_size, w->failed_alloc ? "out of memory" : "cannot write a GIF frame",
                         w->failed_alloc ? 0 : w->gif->Error);
        return MGIF_ERROR;
    }
    return MGIF_OK;
}

int mgif_finish(mgif_writer *w, uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    *out = NULL;
    *out_size = 0;
    int error = 0;
    int closed = EGifCloseFile(w->gif, &error);
    w->gif = NULL;
    if (closed == GIF_ERROR || w->failed_alloc) {
        mgif_set_message(message, message_size, w->failed_alloc ? "out of memory" : "cannot end the GIF",
                         w->failed_alloc ? 0 : error);
        free(w->bytes);
        free(w);
        return MGIF_ERROR;
    }
    *out = w->bytes;
    *out_size = w->size;
    free(w);
    return MGIF_OK;
}

int mgif_encode_frame(uint32_t screen_width, uint32_t screen_height, const uint8_t *indices, uint32_t left, uint32_t top,
                      uint32_t width, uint32_t height, const uint8_t *palette_rgb, int colors, int local_table,
                      int transparent, int delay_cs, uint8_t **out, size_t *out_size, char *message,
                      size_t message_size) {
    *out = NULL;
    *out_size = 0;
    if (message && message_size) message[0] = 0;
    if (palette_rgb == NULL || colors < 1 || colors > 256) {
        mgif_set_message(message, message_size, "a GIF colour table holds 1 to 256 colours", 0);
        return MGIF_ERROR;
    }
    /* A throwaway GIF around the one frame: its header and trailer are cut off below.
       Without a table of its own the frame is coded in the loop's: the throwaway GIF carries
       that one as its global table, so giflib knows the code size. */
    mgif_writer *w = mgif_open(screen_width, screen_height, local_table ? NULL : palette_rgb, colors, message, message_size);
    if (w == NULL) return MGIF_ERROR;
    size_t start = w->size;
    if (mgif_add_frame(w, indices, left, top, width, height, local_table ? palette_rgb : NULL, colors, transparent,
                       delay_cs, message, message_size) != MGIF_OK) {
        mgif_discard(w);
        return MGIF_ERROR;
    }
    uint8_t *bytes = NULL;
    size_t size = 0;
    if (mgif_finish(w, &bytes, &size, message, message_size) != MGIF_OK) return MGIF_ERROR;
    /* Header, screen descriptor and any global table before; the trailer after. */
    if (size < start + 2 || bytes[start] != 0x21 || bytes[size - 1] != 0x3B) {
        free(bytes);
        mgif_set_message(message, message_size, "unexpected GIF layout from giflib", 0);
        return MGIF_ERROR;
    }
    memmove(bytes, bytes + start, size - start - 1);
    *out = bytes;
    *out_size = size - start - 1;
    return MGIF_OK;
}

int mgif_add_encoded(mgif_writer *w, const uint8_t *frame, size_t size, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    if (mgif_write(w->gif, frame, (int)size) != (int)size || w->failed_alloc) {
        mgif_set_message(message, message_size, "out of memory", 0);
        return MGIF_ERROR;
    }
    return MGIF_OK;
}

void mgif_discard(mgif_writer *w) {
    if (w == NULL) return;
    if (w->gif) {
        int error = 0;
        EGifCloseFile(w->gif, &error);
    }
    free(w->bytes);
    free(w);
}

void mgif_free(void *bytes) { free(bytes); }
