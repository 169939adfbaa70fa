#include "cjpeg_shim.h"

#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <jpeglib.h>

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
