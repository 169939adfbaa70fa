#ifndef MATSITE_CPNG_SHIM_H
#define MATSITE_CPNG_SHIM_H

#include <stddef.h>
#include <stdint.h>

// A thin, longjmp-free face of libpng for Swift. Every setjmp lives inside these
// functions; errors and warnings come back as return codes plus a message.

#define MPNG_OK 0
#define MPNG_ERROR 1
#define MPNG_NEED_BUFFER 2

/// What decode may accept.
typedef struct mpng_limits {
    uint32_t max_width;
    uint32_t max_height;
    size_t max_chunk_bytes;     /* largest ancillary chunk libpng will buffer */
} mpng_limits;

/// What a PNG is, and how the decoded pixels are laid out.
typedef struct mpng_info {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
    int channels;               /* of the decoded pixels: 1 = palette indices, 4 = RGBA8 */
    int palette_size;           /* entries in palette, 0 when not a palette image */
    uint8_t palette[256 * 4];   /* RGBA; alpha from tRNS, 255 where tRNS is short */
} mpng_info;

/// Decodes a PNG held in memory.
/// With want_indexed != 0 a palette image keeps its indices (1 byte per pixel); every other
/// image becomes 8-bit RGBA. Pass out == NULL to read only the header: the result is then
/// MPNG_NEED_BUFFER with info filled in. Rows are written `out_stride` bytes apart.
/// Any libpng warning fails the decode (ancillary chunks matsite does not use are skipped).
int mpng_decode(const uint8_t *data, size_t size, int want_indexed, const mpng_limits *limits,
                mpng_info *info, uint8_t *out, size_t out_capacity, size_t out_stride,
                char *message, size_t message_size);

typedef struct mpng_reader mpng_reader;

/// Opens a PNG file for reading row by row (memory: one row plus zlib's window).
/// want_indexed as for mpng_decode. Interlaced images are refused (their rows come in
/// seven passes). Returns NULL with `message` filled on failure; `info` on success.
mpng_reader *mpng_reader_open(const char *path, int want_indexed, const mpng_limits *limits, mpng_info *info,
                              char *message, size_t message_size);

/// Reads the next `count` rows, `stride` bytes apart. After the last row the rest of the
/// file is read and checked too. Any libpng warning fails the read.
int mpng_reader_read_rows(mpng_reader *reader, uint8_t *out, uint32_t count, size_t stride, char *message,
                          size_t message_size);

/// Releases the reader and closes its file.
void mpng_reader_free(mpng_reader *reader);

typedef struct mpng_writer mpng_writer;

/// How a writer compresses. filters: a mask of libpng's PNG_FILTER_* bits (0 = matsite's
/// default for the colour type); strategy: zlib's Z_* strategy (-1 = libpng's default).
typedef struct mpng_write_options {
    int level;                  /* zlib level 0-9 */
    int filters;
    int strategy;
} mpng_write_options;

/// Opens a streaming PNG writer: to `path` when non-NULL, else into memory.
/// channels: 1 (palette indices; palette_rgba/palette_size required), 3 (RGB) or 4 (RGBA).
/// A palette image is written at the smallest bit depth its palette allows (1, 2, 4 or 8);
/// its rows are still given one index per byte (libpng packs them).
/// Returns NULL with `message` filled on failure.
mpng_writer *mpng_writer_open(const char *path, uint32_t width, uint32_t height, int channels,
                              const uint8_t *palette_rgba, int palette_size, const mpng_write_options *options,
                              char *message, size_t message_size);

/* Filter masks and zlib strategies for mpng_write_options (libpng's and zlib's values). */
#define MPNG_FILTER_NONE 0x08
#define MPNG_FILTER_SUB 0x10
#define MPNG_FILTER_UP 0x20
#define MPNG_STRATEGY_DEFAULT 0
#define MPNG_STRATEGY_FILTERED 1
#define MPNG_STRATEGY_RLE 3

/// Changes the filters and zlib strategy of a writer that has written no row yet.
int mpng_writer_set_compression(mpng_writer *writer, int filters, int strategy, char *message, size_t message_size);

/// Writes `count` rows, `stride` bytes apart. Rows beyond the image height are an error.
int mpng_writer_write_rows(mpng_writer *writer, const uint8_t *rows, uint32_t count, size_t stride,
                           char *message, size_t message_size);

/// Writes the end of the image and flushes. After this, memory output can be read.
int mpng_writer_finish(mpng_writer *writer, char *message, size_t message_size);

/// The bytes written so far (memory writers only).
const uint8_t *mpng_writer_bytes(const mpng_writer *writer, size_t *size);

/// Bytes written so far (file or memory).
uint64_t mpng_writer_bytes_written(const mpng_writer *writer);

/// Releases the writer; an unfinished file is closed (the caller removes it).
void mpng_writer_free(mpng_writer *writer);

/// A palette PNG written with libdeflate (cpng_deflate.c): its near-optimal parsing makes
/// radar frames about 6% smaller than zlib, at more CPU. Rows are compressed in bands of a
/// few MiB joined into one zlib stream, so memory stays a band.
typedef struct mpng_dwriter mpng_dwriter;

/// Opens a writer: to `path` when non-NULL, else into memory. The bit depth is the fewest
/// that hold the palette; rows are given one index per byte. `filter` is MPNG_FILTER_SUB or
/// MPNG_FILTER_NONE (every row); `level` libdeflate's, 1-12 (10-12: near-optimal parsing);
/// `band_bytes` the most filtered bytes compressed at once (0: 4 MiB).
mpng_dwriter *mpng_dwriter_open(const char *path, uint32_t width, uint32_t height, const uint8_t *palette_rgba,
                                int palette_size, int filter, int level, size_t band_bytes, char *message,
                                size_t message_size);

/// Changes the filter of a writer that has written no row yet.
int mpng_dwriter_set_filter(mpng_dwriter *writer, int filter, char *message, size_t message_size);

/// Writes `count` rows of indices, `stride` bytes apart.
int mpng_dwriter_write_rows(mpng_dwriter *writer, const uint8_t *rows, uint32_t count, size_t stride, char *message,
                            size_t message_size);

/// Writes the end of the image and flushes.
int mpng_dwriter_finish(mpng_dwriter *writer, char *message, size_t message_size);

/// The bytes written (memory writers only).
const uint8_t *mpng_dwriter_bytes(const mpng_dwriter *writer, size_t *size);

/// Bytes written so far (file or memory).
uint64_t mpng_dwriter_bytes_written(const mpng_dwriter *writer);

/// Releases the writer; an unfinished file is closed (the caller removes it).
void mpng_dwriter_free(mpng_dwriter *writer);

#endif
