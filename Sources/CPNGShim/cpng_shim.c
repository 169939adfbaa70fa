#include "cpng_shim.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ shared */

typedef struct mpng_report {
    char *message;
    size_t message_size;
    int warned;
} mpng_report;

static void mpng_set_message(char *message, size_t size, const char *prefix, const char *text) {
    if (message == NULL || size == 0) return;
    snprintf(message, size, "%s%s", prefix, text ? text : "");
}

static void mpng_on_error(png_structp png, png_const_charp text) {
    mpng_report *report = (mpng_report *)png_get_error_ptr(png);
    if (report && !report->warned) mpng_set_message(report->message, report->message_size, "", text);
    png_longjmp(png, 1);
}

/* A warning on a tile means damage (bad CRC, extra or missing data): it fails the tile. */
static void mpng_on_warning(png_structp png, png_const_charp text) {
    mpng_report *report = (mpng_report *)png_get_error_ptr(png);
    if (report && !report->warned) {
        mpng_set_message(report->message, report->message_size, "", text);
        report->warned = 1;
    }
}

/* Ancillary chunks matsite never uses: skipped unread, so their quirks (old iCCP
   profiles, odd text) cannot fail an otherwise good tile. */
static const png_byte mpng_ignored_chunks[] =
    "bKGD\0cHRM\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0oFFs\0pCAL\0pHYs\0sBIT\0sCAL\0sPLT\0sRGB\0tEXt\0tIME\0zTXt\0";

/* ------------------------------------------------------------------ decode */

typedef struct mpng_source {
    const uint8_t *data;
    size_t size;
    size_t offset;
} mpng_source;

static void mpng_read(png_structp png, png_bytep out, size_t length) {
    mpng_source *source = (mpng_source *)png_get_io_ptr(png);
    if (source->size - source->offset < length) png_error(png, "truncated PNG (data ends early)");
    memcpy(out, source->data + source->offset, length);
    source->offset += length;
}

static void mpng_fill_palette(png_structp png, png_infop info, mpng_info *out) {
    png_colorp palette = NULL;
    int count = 0;
    out->palette_size = 0;
    if (png_get_PLTE(png, info, &palette, &count) == 0 || palette == NULL) return;
    png_bytep alpha = NULL;
    int alpha_count = 0;
    png_color_16p unused = NULL;
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_get_tRNS(png, info, &alpha, &alpha_count, &unused);
    for (int i = 0; i < count && i < 256; i++) {
        out->palette[i * 4 + 0] = palette[i].red;
        out->palette[i * 4 + 1] = palette[i].green;
        out->palette[i * 4 + 2] = palette[i].blue;
        out->palette[i * 4 + 3] = (alpha != NULL && i < alpha_count) ? alpha[i] : 255;
    }
    out->palette_size = count;
}

/* The limits and strictness every read runs with: size limits, a cap on chunk memory, CRC
   errors fatal, ancillary chunks matsite never uses skipped unread. */
static void mpng_configure_read(png_structp png, const mpng_limits *limits) {
    png_set_user_limits(png, limits->max_width, limits->max_height);
    png_set_chunk_cache_max(png, 64);
    png_set_chunk_malloc_max(png, limits->max_chunk_bytes);
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    png_set_benign_errors(png, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, mpng_ignored_chunks,
                                (int)(sizeof(mpng_ignored_chunks) / 5));
}

/* Fills `info_out` from the header read by png_read_info; returns whether rows stay indices. */
static int mpng_describe(png_structp png, png_infop info, int want_indexed, mpng_info *info_out) {
    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    memset(info_out, 0, sizeof(*info_out));
    info_out->width = width;
    info_out->height = height;
    info_out->bit_depth = bit_depth;
    info_out->color_type = color_type;
    info_out->interlaced = interlace != PNG_INTERLACE_NONE;
    mpng_fill_palette(png, info, info_out);
    int indexed = want_indexed && color_type == PNG_COLOR_TYPE_PALETTE;
    info_out->channels = indexed ? 1 : 4;
    return indexed;
}

/* Rows as palette indices (one a byte), or 8-bit RGBA from any colour type. */
static void mpng_set_transforms(png_structp png, int indexed, int color_type) {
    if (indexed) {
        png_set_packing(png);
    } else {
        png_set_expand(png);
        png_set_scale_16(png);
        if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
        png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    }
}

int mpng_decode(const uint8_t *data, size_t size, int want_indexed, const mpng_limits *limits,
                mpng_info *info_out, uint8_t *out, size_t out_capacity, size_t out_stride,
                char *message, size_t message_size) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (message && message_size) message[0] = 0;
    if (size < 8 || memcmp(data, signature, 8) != 0) {
        mpng_set_message(message, message_size, "", size == 0 ? "empty file" : "not a PNG (bad signature)");
        return MPNG_ERROR;
    }
    mpng_report report = {message, message_size, 0};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &report, mpng_on_error, mpng_on_warning);
    if (png == NULL) { mpng_set_message(message, message_size, "", "out of memory"); return MPNG_ERROR; }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        mpng_set_message(message, message_size, "", "out of memory");
        return MPNG_ERROR;
    }
    mpng_source source = {data, size, 0};
    /* volatile: assigned after setjmp and freed after a longjmp (C11 7.13.2.1), else the
       error path may see the register copy from setjmp time (NULL) and leak the array. */
    png_bytep *volatile rows = NULL;
    volatile int result = MPNG_ERROR;

    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return MPNG_ERROR;
    }
    png_set_read_fn(png, &source, mpng_read);
    mpng_configure_read(png, limits);
    png_read_info(png, info);
    if (report.warned) png_error(png, message);

    int indexed = mpng_describe(png, info, want_indexed, info_out);
    png_uint_32 width = info_out->width, height = info_out->height;
    if (out == NULL) {
        png_destroy_read_struct(&png, &info, NULL);
        return MPNG_NEED_BUFFER;
    }
    size_t row_bytes = (size_t)width * (size_t)info_out->channels;
    if (out_stride < row_bytes || out_capacity < out_stride * (size_t)(height - 1) + row_bytes) {
        png_destroy_read_struct(&png, &info, NULL);
        return MPNG_NEED_BUFFER;
    }

    mpng_set_transforms(png, indexed, info_out->color_type);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != row_bytes) png_error(png, "unexpected decoded row size");

    rows = (png_bytep *)malloc(sizeof(png_bytep) * height);
    if (rows == NULL) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < height; y++) rows[y] = out + (size_t)y * out_stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    if (report.warned) png_error(png, message);
    result = MPNG_OK;

    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    return result;
}

/* ------------------------------------------------------------------ row reader */

struct mpng_reader {
    png_structp png;
    png_infop info;
    FILE *file;
    uint32_t height;
    uint32_t rows_read;
    int failed;
    mpng_report report;
};

static void mpng_read_file(png_structp png, png_bytep out, size_t length) {
    mpng_reader *reader = (mpng_reader *)png_get_io_ptr(png);
    if (fread(out, 1, length, reader->file) != length) png_error(png, "truncated PNG (file ends early)");
}

static void mpng_reader_bind(mpng_reader *reader, char *message, size_t message_size) {
    reader->report.message = message;
    reader->report.message_size = message_size;
    reader->report.warned = 0;
    if (message && message_size) message[0] = 0;
}

mpng_reader *mpng_reader_open(const char *path, int want_indexed, const mpng_limits *limits, mpng_info *info_out,
                              char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    mpng_reader *reader = (mpng_reader *)calloc(1, sizeof(mpng_reader));
    if (reader == NULL) { mpng_set_message(message, message_size, "", "out of memory"); return NULL; }
    mpng_reader_bind(reader, message, message_size);
    reader->file = fopen(path, "rb");
    if (reader->file == NULL) {
        mpng_set_message(message, message_size, "cannot open file: ", path);
        free(reader);
        return NULL;
    }
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t head[8];
    if (fread(head, 1, 8, reader->file) != 8 || memcmp(head, signature, 8) != 0) {
        mpng_set_message(message, message_size, "", "not a PNG (bad signature)");
        mpng_reader_free(reader);
        return NULL;
    }
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader->report, mpng_on_error, mpng_on_warning);
    if (reader->png) reader->info = png_create_info_struct(reader->png);
    if (reader->png == NULL || reader->info == NULL) {
        mpng_set_message(message, message_size, "", "out of memory");
        mpng_reader_free(reader);
        return NULL;
    }
    if (setjmp(png_jmpbuf(reader->png))) {
        mpng_reader_free(reader);
        return NULL;
    }
    png_structp png = reader->png;
    png_infop info = reader->info;
    png_set_read_fn(png, reader, mpng_read_file);
    png_set_sig_bytes(png, 8);
    mpng_configure_read(png, limits);
    png_read_info(png, info);
    if (reader->report.warned) png_error(png, message);

    int indexed = mpng_describe(png, info, want_indexed, info_out);
    /* Adam7 spreads each row over seven passes: only a whole-image decode can put it together. */
    if (info_out->interlaced) png_error(png, "interlaced PNG: cannot be read row by row");
    mpng_set_transforms(png, indexed, info_out->color_type);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)info_out->width * (size_t)info_out->channels) png_error(png, "unexpected decoded row size");
    reader->height = info_out->height;
    return reader;
}

int mpng_reader_read_rows(mpng_reader *reader, uint8_t *out, uint32_t count, size_t stride, char *message,
                          size_t message_size) {
    if (reader->failed) { mpng_set_message(message, message_size, "", "reader already failed"); return MPNG_ERROR; }
    if (reader->rows_read + count > reader->height) {
        mpng_set_message(message, message_size, "", "more rows asked for than the image has");
        return MPNG_ERROR;
    }
    mpng_reader_bind(reader, message, message_size);
    if (setjmp(png_jmpbuf(reader->png))) { reader->failed = 1; return MPNG_ERROR; }
    for (uint32_t i = 0; i < count; i++) png_read_row(reader->png, out + (size_t)i * stride, NULL);
    reader->rows_read += count;
    /* The last row: the rest of the file (the stream's checksum, the chunks after IDAT) is read and checked. */
    if (reader->rows_read == reader->height) png_read_end(reader->png, NULL);
    if (reader->report.warned) png_error(reader->png, message);
    return MPNG_OK;
}

void mpng_reader_free(mpng_reader *reader) {
    if (reader == NULL) return;
    if (reader->png) png_destroy_read_struct(&reader->png, reader->info ? &reader->info : NULL, NULL);
    if (reader->file) fclose(reader->file);
    free(reader);
}

/* ------------------------------------------------------------------ encode */

struct mpng_writer {
    png_structp png;
    png_infop info;
    FILE *file;
    uint8_t *memory;
    size_t memory_size;
    size_t memory_capacity;
    uint64_t written;
    uint32_t height;
    uint32_t rows_written;
    int failed;
    mpng_report report;
};

static void mpng_write_data(png_structp png, png_bytep data, size_t length) {
    mpng_writer *writer = (mpng_writer *)png_get_io_ptr(png);
    if (writer->file) {
        if (fwrite(data, 1, length, writer->file) != length) png_error(png, "write failed (disk full?)");
    } else {
        if (writer->memory_capacity - writer->memory_size < length) {
            size_t capacity = writer->memory_capacity ? writer->memory_capacity : 65536;
            while (capacity - writer->memory_size < length) capacity *= 2;
            uint8_t *grown = (uint8_t *)realloc(writer->memory, capacity);
            if (grown == NULL) png_error(png, "out of memory");
            writer->memory = grown;
            writer->memory_capacity = capacity;
        }
        memcpy(writer->memory + writer->memory_size, data, length);
        writer->memory_size += length;
    }
    writer->written += length;
}

static void mpng_flush_data(png_structp png) {
    mpng_writer *writer = (mpng_writer *)png_get_io_ptr(png);
    if (writer->file) fflush(writer->file);
}

static void mpng_bind_report(mpng_writer *writer, char *message, size_t message_size) {
    writer->report.message = message;
    writer->report.message_size = message_size;
    writer->report.warned = 0;
    if (message && message_size) message[0] = 0;
}

mpng_writer *mpng_writer_open(const char *path, uint32_t width, uint32_t height, int channels,
                              const uint8_t *palette_rgba, int palette_size, const mpng_write_options *options,
                              char *message, size_t message_size) {
    if (channels != 1 && channels != 3 && channels != 4) {
        mpng_set_message(message, message_size, "", "unsupported channel count");
        return NULL;
    }
    if (channels == 1 && (palette_rgba == NULL || palette_size < 1 || palette_size > 256)) {
        mpng_set_message(message, message_size, "", "an indexed PNG needs a palette of 1 to 256 entries");
        return NULL;
    }
    mpng_writer *writer = (mpng_writer *)calloc(1, sizeof(mpng_writer));
    if (writer == NULL) { mpng_set_message(message, message_size, "", "out of memory"); return NULL; }
    mpng_bind_report(writer, message, message_size);
    if (path != NULL) {
        writer->file = fopen(path, "wb");
        if (writer->file == NULL) {
            mpng_set_message(message, message_size, "cannot create file: ", path);
            free(writer);
            return NULL;
        }
        setvbuf(writer->file, NULL, _IOFBF, 1 << 18);
    }
    writer->height = height;
    writer->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &writer->report, mpng_on_error, mpng_on_warning);
    if (writer->png) writer->info = png_create_info_struct(writer->png);
    if (writer->png == NULL || writer->info == NULL) {
        mpng_set_message(message, message_size, "", "out of memory");
        mpng_writer_free(writer);
        return NULL;
    }
    if (setjmp(png_jmpbuf(writer->png))) {
        mpng_writer_free(writer);
        return NULL;
    }
    png_set_write_fn(writer->png, writer, mpng_write_data, mpng_flush_data);
    png_set_compression_level(writer->png, options->level);
    if (options->strategy >= 0) png_set_compression_strategy(writer->png, options->strategy);
    png_set_compression_buffer_size(writer->png, 1 << 16);
    int color_type = channels == 1 ? PNG_COLOR_TYPE_PALETTE : channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA;
    /* The fewest bits that hold every palette index: 16 colours pack two pixels a byte. */
    int bit_depth = 8;
    if (channels == 1) bit_depth = palette_size <= 2 ? 1 : palette_size <= 4 ? 2 : palette_size <= 16 ? 4 : 8;
    png_set_IHDR(writer->png, writer->info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (channels == 1) {
        /* Indexed data gains little from prediction filters (the PNG spec's advice). */
        png_set_filter(writer->png, PNG_FILTER_TYPE_BASE, options->filters ? options->filters : PNG_FILTER_NONE);
        png_color colors[256];
        png_byte alpha[256];
        int last_translucent = -1;
        for (int i = 0; i < palette_size; i++) {
            colors[i].red = palette_rgba[i * 4 + 0];
            colors[i].green = palette_rgba[i * 4 + 1];
            colors[i].blue = palette_rgba[i * 4 + 2];
            alpha[i] = palette_rgba[i * 4 + 3];
            if (alpha[i] != 255) last_translucent = i;
        }
        png_set_PLTE(writer->png, writer->info, colors, palette_size);
        if (last_translucent >= 0) png_set_tRNS(writer->png, writer->info, alpha, last_translucent + 1, NULL);
    } else {
        /* Sub and Up catch most of what adaptive filtering does on map imagery, at a
           fraction of Paeth's cost. */
        png_set_filter(writer->png, PNG_FILTER_TYPE_BASE,
                       options->filters ? options->filters : PNG_FILTER_SUB | PNG_FILTER_UP);
    }
    png_write_info(writer->png, writer->info);
    /* Rows arrive one index per byte; libpng packs them to the bit depth. */
    if (bit_depth < 8) png_set_packing(writer->png);
    return writer;
}

int mpng_writer_set_compression(mpng_writer *writer, int filters, int strategy, char *message, size_t message_size) {
    if (writer->failed) { mpng_set_message(message, message_size, "", "writer already failed"); return MPNG_ERROR; }
    if (writer->rows_written > 0) {
        mpng_set_message(message, message_size, "", "compression settings change after the first row");
        return MPNG_ERROR;
    }
    mpng_bind_report(writer, message, message_size);
    if (setjmp(png_jmpbuf(writer->png))) { writer->failed = 1; return MPNG_ERROR; }
    /* zlib's stream starts with the first row, so both still apply to the whole image. */
    if (filters) png_set_filter(writer->png, PNG_FILTER_TYPE_BASE, filters);
    if (strategy >= 0) png_set_compression_strategy(writer->png, strategy);
    return MPNG_OK;
}

int mpng_writer_write_rows(mpng_writer *writer, const uint8_t *rows, uint32_t count, size_t stride,
                           char *message, size_t message_size) {
    if (writer->failed) { mpng_set_message(message, message_size, "", "writer already failed"); return MPNG_ERROR; }
    if (writer->rows_written + count > writer->height) {
        mpng_set_message(message, message_size, "", "more rows than the image height");
        return MPNG_ERROR;
    }
    mpng_bind_report(writer, message, message_size);
    if (setjmp(png_jmpbuf(writer->png))) { writer->failed = 1; return MPNG_ERROR; }
    for (uint32_t i = 0; i < count; i++) png_write_row(writer->png, (png_const_bytep)(rows + (size_t)i * stride));
    writer->rows_written += count;
    return MPNG_OK;
}

int mpng_writer_finish(mpng_writer *writer, char *message, size_t message_size) {
    if (writer->failed) { mpng_set_message(message, message_size, "", "writer already failed"); return MPNG_ERROR; }
    if (writer->rows_written != writer->height) {
        mpng_set_message(message, message_size, "", "fewer rows than the image height");
        return MPNG_ERROR;
    }
    mpng_bind_report(writer, message, message_size);
    if (setjmp(png_jmpbuf(writer->png))) { writer->failed = 1; return MPNG_ERROR; }
    png_write_end(writer->png, writer->info);
    if (writer->file) {
        if (fflush(writer->file) != 0 || ferror(writer->file)) {
            writer->failed = 1;
            mpng_set_message(message, message_size, "", "write failed (disk full?)");
            return MPNG_ERROR;
        }
    }
    return MPNG_OK;
}

const uint8_t *mpng_writer_bytes(const mpng_writer *writer, size_t *size) {
    *size = writer->memory_size;
    return writer->memory;
}

uint64_t mpng_writer_bytes_written(const mpng_writer *writer) { return writer->written; }

void mpng_writer_free(mpng_writer *writer) {
    if (writer == NULL) return;
    if (writer->png) png_destroy_write_struct(&writer->png, writer->info ? &writer->info : NULL);
    if (writer->file) fclose(writer->file);
    free(writer->memory);
    free(writer);
}
