#include "cjpeg_shim.h"

#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct mjpeg_error {
    struct jpeg_error_mgr base;    /* first: libjpeg hands back a pointer to this */
    jmp_buf jump;
    char *message;
    size_t message_size;
    uint32_t max_scans;
} mjpeg_error;

static void mjpeg_set_message(char *message, size_t size, const char *text) {
    if (message == NULL || size == 0) return;
    snprintf(message, size, "%s", text ? text : "");
}

/* error_exit must not return: leave through the setjmp in mjpeg_decode (C frames only). */
static void mjpeg_on_error(j_common_ptr cinfo) {
    mjpeg_error *error = (mjpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    if (error->message && error->message[0] == 0) mjpeg_set_message(error->message, error->message_size, text);
    longjmp(error->jump, 1);
}

/* A warning (level -1) means damaged data: libjpeg would paper over it with gray
   pixels, which matsite must not publish as if it were the tile. Trace messages
   (level >= 0) are ignored. */
static void mjpeg_on_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    mjpeg_error *error = (mjpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    if (error->message && error->message[0] == 0) mjpeg_set_message(error->message, error->message_size, text);
    longjmp(error->jump, 1);
}

/* Bounds the work a progressive file can ask for: each scan re-walks the coefficients. */
static void mjpeg_on_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    mjpeg_error *error = (mjpeg_error *)cinfo->err;
    if (d->input_scan_number > 0 && (uint32_t)d->input_scan_number > error->max_scans) {
        char text[96];
        snprintf(text, sizeof text, "JPEG has more than %u progressive scans", error->max_scans);
        if (error->message && error->message[0] == 0) mjpeg_set_message(error->message, error->message_size, text);
        longjmp(error->jump, 1);
    }
}

/* The IJG quality whose scaled standard luminance table is nearest the file's (sum of
   absolute differences): what a frame re-encoded from such tiles needs at most, since a
   higher quality only spends bytes on the tiles' own artefacts. */
static int mjpeg_estimate_quality(j_decompress_ptr cinfo) {
    static const unsigned int standard[DCTSIZE2] = {
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
    JQUANT_TBL *table = cinfo->quant_tbl_ptrs[0];
    if (table == NULL) return 0;
    int best = 0;
    unsigned long best_distance = (unsigned long)-1;
    for (int quality = 1; quality <= 100; quality++) {
        long scale = quality < 50 ? 5000 / quality : 200 - quality * 2;
        unsigned long distance = 0;
        for (int i = 0; i < DCTSIZE2; i++) {
            long q = ((long)standard[i] * scale + 50) / 100;
            if (q < 1) q = 1;
            if (q > 255) q = 255;
            /* quantval is in natural order in libjpeg's tables, as the standard one is. */
            long d = (long)table->quantval[i] - q;
            distance += (unsigned long)(d < 0 ? -d : d);
        }
        if (distance < best_distance) {
            best_distance = distance;
            best = quality;
        }
    }
    return best;
}

int mjpeg_decode(const uint8_t *data, size_t size, const mjpeg_limits *limits, mjpeg_info *info,
                 uint8_t *out, size_t out_capacity, size_t out_stride, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    memset(info, 0, sizeof(*info));
    if (size < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF) {
        mjpeg_set_message(message, message_size, size == 0 ? "empty file" : "not a JPEG (bad signature)");
        return MJPEG_ERROR;
    }
    struct jpeg_decompress_struct cinfo;
    mjpeg_error error;
    struct jpeg_progress_mgr progress;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&error, 0, sizeof error);
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = mjpeg_on_error;
    error.base.emit_message = mjpeg_on_message;
    error.message = message;
    error.message_size = message_size;
    error.max_scans = limits->max_scans;
    progress.progress_monitor = mjpeg_on_progress;
    /* volatile: read after a longjmp (C11 7.13.2.1). */
    volatile int created = 0;

    if (setjmp(error.jump)) {
        if (created) jpeg_destroy_decompress(&cinfo);
        if (message && message_size && message[0] == 0) mjpeg_set_message(message, message_size, "damaged JPEG");
        return MJPEG_ERROR;
    }
    jpeg_create_decompress(&cinfo);
    created = 1;
    cinfo.progress = &progress;
    /* Bounds libjpeg's working memory (coefficient buffers of a progressive image). */
    cinfo.mem->max_memory_to_use = (long)64 << 20;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);

    info->width = cinfo.image_width;
    info->height = cinfo.image_height;
    info->components = cinfo.num_components;
    info->color_space = (int)cinfo.jpeg_color_space;
    info->progressive = cinfo.progressive_mode ? 1 : 0;
    info->quality = mjpeg_estimate_quality(&cinfo);

    if (cinfo.image_width > limits->max_width || cinfo.image_height > limits->max_height) {
        char text[128];
        snprintf(text, sizeof text, "JPEG is %ux%u pixels, larger than the limit %ux%u",
                 cinfo.image_width, cinfo.image_height, limits->max_width, limits->max_height);
        mjpeg_set_message(message, message_size, text);
        jpeg_destroy_decompress(&cinfo);
        return MJPEG_ERROR;
    }
    switch (cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: case JCS_YCbCr: case JCS_RGB:
        break;
    case JCS_CMYK: case JCS_YCCK:
        mjpeg_set_message(message, message_size, "CMYK JPEG (matsite decodes gray and RGB JPEG tiles)");
        jpeg_destroy_decompress(&cinfo);
        return MJPEG_ERROR;
    default:
        mjpeg_set_message(message, message_size, "JPEG in an unknown colour space (matsite decodes gray and RGB JPEG tiles)");
        jpeg_destroy_decompress(&cinfo);
        return MJPEG_ERROR;
    }
    if (out == NULL) {
        jpeg_destroy_decompress(&cinfo);
        return MJPEG_NEED_BUFFER;
    }
    size_t row_bytes = (size_t)cinfo.image_width * 4;
    if (out_stride < row_bytes || cinfo.image_height == 0 ||
        out_capacity < out_stride * (size_t)(cinfo.image_height - 1) + row_bytes) {
        jpeg_destroy_decompress(&cinfo);
        return MJPEG_NEED_BUFFER;
    }
    cinfo.out_color_space = JCS_EXT_RGBA;
    /* The exact integer IDCT and smooth upsampling: the same pixels every run and machine. */
    cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_components != 4 || cinfo.output_width != cinfo.image_width) {
        mjpeg_set_message(message, message_size, "unexpected decoded JPEG layout");
        jpeg_destroy_decompress(&cinfo);
        return MJPEG_ERROR;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = out + (size_t)cinfo.output_scanline * out_stride;
        if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) {
            mjpeg_set_message(message, message_size, "truncated JPEG (data ends early)");
            jpeg_destroy_decompress(&cinfo);
            return MJPEG_ERROR;
        }
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return MJPEG_OK;
}

/* The encoder's destination: a buffer of our own (libjpeg's jpeg_mem_dest frees and
   replaces its buffer as it grows, so after an error nobody could say which one to free).
   Read through a volatile pointer after a longjmp. */
typedef struct mjpeg_destination {
    struct jpeg_destination_mgr base;  /* first: libjpeg hands back a pointer to this */
    unsigned char *buffer;
    size_t capacity;
    size_t size;
} mjpeg_destination;

static void mjpeg_out_of_memory(j_compress_ptr cinfo) {
    cinfo->err->msg_code = JERR_OUT_OF_MEMORY;
    (*cinfo->err->error_exit)((j_common_ptr)cinfo);
}

static void mjpeg_init_destination(j_compress_ptr cinfo) {
    mjpeg_destination *dest = (mjpeg_destination *)cinfo->dest;
    dest->capacity = 1 << 16;
    dest->buffer = malloc(dest->capacity);
    if (dest->buffer == NULL) mjpeg_out_of_memory(cinfo);
    dest->base.next_output_byte = dest->buffer;
    dest->base.free_in_buffer = dest->capacity;
}

static boolean mjpeg_empty_output_buffer(j_compress_ptr cinfo) {
    mjpeg_destination *dest = (mjpeg_destination *)cinfo->dest;
    /* libjpeg calls this only when the whole buffer is full. */
    unsigned char *grown = realloc(dest->buffer, dest->capacity * 2);
    if (grown == NULL) mjpeg_out_of_memory(cinfo);
    dest->buffer = grown;
    dest->base.next_output_byte = grown + dest->capacity;
    dest->base.free_in_buffer = dest->capacity;
    dest->capacity *= 2;
    return TRUE;
}

static void mjpeg_term_destination(j_compress_ptr cinfo) {
    mjpeg_destination *dest = (mjpeg_destination *)cinfo->dest;
    dest->size = dest->capacity - dest->base.free_in_buffer;
}

int mjpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int quality,
                 uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    *out = NULL;
    *out_size = 0;
    if (width == 0 || height == 0 || width > 65500 || height > 65500 || stride < (size_t)width * 4) {
        mjpeg_set_message(message, message_size, "invalid image size for JPEG (1 to 65500 pixels a side)");
        return MJPEG_ERROR;
    }
    struct jpeg_compress_struct cinfo;
    mjpeg_error error;
    mjpeg_destination destination;
    volatile mjpeg_destination *kept = &destination;
    memset(&destination, 0, sizeof destination);
    destination.base.init_destination = mjpeg_init_destination;
    destination.base.empty_output_buffer = mjpeg_empty_output_buffer;
    destination.base.term_destination = mjpeg_term_destination;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&error, 0, sizeof error);
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = mjpeg_on_error;
    error.message = message;
    error.message_size = message_size;
    volatile int created = 0;

    if (setjmp(error.jump)) {
        if (created) jpeg_destroy_compress(&cinfo);
        free(kept->buffer);
        if (message && message_size && message[0] == 0) mjpeg_set_message(message, message_size, "JPEG encode failed");
        return MJPEG_ERROR;
    }
    jpeg_create_compress(&cinfo);
    created = 1;
    cinfo.dest = &destination.base;
    cinfo.image_width = width;
    cinfo.image_height = height;
    /* RGBA rows as they are: libjpeg-turbo skips the alpha byte (the caller chose JPEG
       because the frame is opaque). */
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    cinfo.optimize_coding = TRUE;  /* optimal Huffman tables: a few percent smaller, same pixels */
    cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgba + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = kept->buffer;
    *out_size = kept->size;
    return MJPEG_OK;
}

void mjpeg_free(void *bytes) { free(bytes); }
