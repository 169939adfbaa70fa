#include "cpng_shim.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* A palette PNG whose image data libdeflate compresses, band by band.

   libdeflate's near-optimal parsing makes a radar frame about 6% smaller than zlib can,
   but it compresses whole buffers only. So the filtered rows are gathered into bands of at
   most MPNG_DEFLATE_BAND bytes, each band compressed on its own, and the bands' deflate
   streams joined into the one zlib stream PNG needs, as zlib's gzjoin example joins gzip
   members: in every band but the last, the last block's "final" bit is cleared and an
   empty stored block brings the stream to a byte boundary, where the next band's stream
   begins. zlib's inflate (Z_BLOCK) finds where that last block starts. Memory is one band,
   whatever the frame's height; a frame of fewer bytes is one band, compressed whole. */

#define MPNG_DEFLATE_BAND (4u << 20)

struct mpng_dwriter {
    FILE *file;
    uint8_t *memory;
    size_t memory_size;
    size_t memory_capacity;
    uint64_t written;
    int failed;

    struct libdeflate_compressor *compressor;
    uint32_t width;
    uint32_t height;
    uint32_t rows_written;
    int bit_depth;
    int filter; /* 0 none, 1 Sub */
    size_t row_bytes; /* packed, without the filter byte */
    uint8_t *packed;  /* the current row packed, then the previous one (for Sub: only the current) */
    uint8_t *band;    /* filtered rows (filter byte + row) waiting to be compressed */
    size_t band_size;
    size_t band_capacity;
    uint8_t *compressed;
    size_t compressed_capacity;
    uint32_t adler;
    int wrote_header;
};

static void mpng_dmessage(char *message, size_t size, const char *text) {
    if (message && size) snprintf(message, size, "%s", text);
}

static int mpng_dput(mpng_dwriter *w, const uint8_t *data, size_t length) {
    if (w->file) {
        if (fwrite(data, 1, length, w->file) != length) return 0;
    } else {
        if (w->memory_capacity - w->memory_size < length) {
            size_t capacity = w->memory_capacity ? w->memory_capacity : 65536;
            while (capacity - w->memory_size < length) capacity *= 2;
            uint8_t *grown = realloc(w->memory, capacity);
            if (grown == NULL) return 0;
            w->memory = grown;
            w->memory_capacity = capacity;
        }
        memcpy(w->memory + w->memory_size, data, length);
        w->memory_size += length;
    }
    w->written += length;
    return 1;
}

static void mpng_dbe32(uint8_t *out, uint32_t v) {
    out[0] = (uint8_t)(v >> 24);
    out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8);
    out[3] = (uint8_t)v;
}

/* One chunk: length, type, data, CRC-32 of type and data. `prefix`/`suffix` go around the
   data inside the same chunk (the zlib header and checksum). */
static int mpng_dchunk(mpng_dwriter *w, const char *type, const uint8_t *prefix, size_t prefix_size, const uint8_t *data,
                       size_t size, const uint8_t *suffix, size_t suffix_size) {
    uint8_t head[8];
    mpng_dbe32(head, (uint32_t)(prefix_size + size + suffix_size));
    memcpy(head + 4, type, 4);
    /* (libdeflate's crc32 of a NULL buffer is its initial value, not a continuation.) */
    uint32_t crc = libdeflate_crc32(0, head + 4, 4);
    if (prefix_size) crc = libdeflate_crc32(crc, prefix, prefix_size);
    if (size) crc = libdeflate_crc32(crc, data, size);
    if (suffix_size) crc = libdeflate_crc32(crc, suffix, suffix_size);
    uint8_t tail[4];
    mpng_dbe32(tail, crc);
    return mpng_dput(w, head, 8) && (prefix_size == 0 || mpng_dput(w, prefix, prefix_size)) &&
           (size == 0 || mpng_dput(w, data, size)) && (suffix_size == 0 || mpng_dput(w, suffix, suffix_size)) &&
           mpng_dput(w, tail, 4);
}

/* In a raw deflate stream that ends with a final block: the bit where that block's header
   starts and the bit after its end-of-block code. 0 when zlib cannot read the stream. */
static int mpng_dlast_block(const uint8_t *stream, size_t size, size_t band_size, size_t *last_header, size_t *end) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK) return 0;
    uint8_t scratch[1 << 16];
    z.next_in = (Bytef *)stream;
    z.avail_in = (uInt)size;
    size_t boundary = 0;
    int ok = 0, have_end = 0;
    for (;;) {
        z.next_out = scratch;
        z.avail_out = sizeof scratch;
        int r = inflate(&z, Z_BLOCK);
        /* Where inflate stopped, in bits (data_type's low bits: those of the last byte read
           and not used). Read it at the block boundary: at the stream's end zlib has
           already skipped to the next byte. */
        size_t at = (size_t)(z.next_in - stream) * 8 - (size_t)(z.data_type & 7);
        if (r == Z_STREAM_END) {
            ok = have_end && z.total_out == band_size;
            break;
        }
        if (r != Z_OK) break;
        if (z.data_type & 128) {
            if (z.data_type & 64) {
                /* After the last block's end-of-block code. */
                *end = at;
                have_end = 1;
            } else {
                /* After a block that was not the last: the next block's header starts here. */
                boundary = at;
            }
        }
    }
    inflateEnd(&z);
    *last_header = boundary;
    return ok;
}

/* Compresses the band and writes it as an IDAT chunk (the first with the zlib header,
   the last with the Adler-32). */
static int mpng_dflush(mpng_dwriter *w, int final, char *message, size_t message_size) {
    size_t n = libdeflate_deflate_compress(w->compressor, w->band, w->band_size, w->compressed, w->compressed_capacity - 5);
    if (n == 0) {
        mpng_dmessage(message, message_size, "libdeflate could not compress a band of the image");
        return 0;
    }
    if (!final) {
        size_t last_header = 0, end = 0;
        if (!mpng_dlast_block(w->compressed, n, w->band_size, &last_header, &end)) {
            mpng_dmessage(message, message_size, "libdeflate's stream could not be read back to join it");
            return 0;
        }
        w->compressed[last_header >> 3] &= (uint8_t) ~(1u << (last_header & 7));
        /* An empty stored block: three zero header bits, zeros to the byte, LEN 0, NLEN 0xFFFF. */
        size_t first = end >> 3;
        w->compressed[first] &= (uint8_t)((1u << (end & 7)) - 1);
        n = (end + 3 + 7) / 8;
        for (size_t i = first + 1; i < n; i++) w->compressed[i] = 0;
        static const uint8_t stored[4] = {0x00, 0x00, 0xFF, 0xFF};
        memcpy(w->compressed + n, stored, 4);
        n += 4;
    }
    w->adler = libdeflate_adler32(w->adler, w->band, w->band_size);
    static const uint8_t header[2] = {0x78, 0xDA};
    uint8_t checksum[4];
    mpng_dbe32(checksum, w->adler);
    int ok = mpng_dchunk(w, "IDAT", header, w->wrote_header ? 0 : 2, w->compressed, n, checksum, final ? 4 : 0);
    w->wrote_header = 1;
    w->band_size = 0;
    if (!ok) mpng_dmessage(message, message_size, "write failed (disk full?)");
    return ok;
}

mpng_dwriter *mpng_dwriter_open(const char *path, uint32_t width, uint32_t height, const uint8_t *palette_rgba,
                                int palette_size, int filter, int level, size_t band_bytes, char *message,
                                size_t message_size) {
    if (message && message_size) message[0] = 0;
    if (width == 0 || height == 0 || palette_rgba == NULL || palette_size < 1 || palette_size > 256) {
        mpng_dmessage(message, message_size, "a palette PNG needs a size and 1 to 256 palette entries");
        return NULL;
    }
    mpng_dwriter *w = calloc(1, sizeof *w);
    if (w == NULL) {
        mpng_dmessage(message, message_size, "out of memory");
        return NULL;
    }
    w->width = width;
    w->height = height;
    w->filter = filter == MPNG_FILTER_SUB ? 1 : 0;
    w->bit_depth = palette_size <= 2 ? 1 : palette_size <= 4 ? 2 : palette_size <= 16 ? 4 : 8;
    w->row_bytes = ((size_t)width * (size_t)w->bit_depth + 7) / 8;
    size_t band = band_bytes ? band_bytes : MPNG_DEFLATE_BAND;
    w->band_capacity = w->row_bytes + 1 > band ? w->row_bytes + 1 : band / (w->row_bytes + 1) * (w->row_bytes + 1);
    w->adler = 1;
    w->compressor = libdeflate_alloc_compressor(level < 1 ? 1 : level > 12 ? 12 : level);
    w->packed = malloc(w->row_bytes);
    w->band = malloc(w->band_capacity);
    if (w->compressor) {
        w->compressed_capacity = libdeflate_deflate_compress_bound(w->compressor, w->band_capacity) + 16;
        w->compressed = malloc(w->compressed_capacity);
    }
    if (w->compressor == NULL || w->packed == NULL || w->band == NULL || w->compressed == NULL) {
        mpng_dmessage(message, message_size, "out of memory");
        mpng_dwriter_free(w);
        return NULL;
    }
    if (path != NULL) {
        w->file = fopen(path, "wb");
        if (w->file == NULL) {
            if (message && message_size) snprintf(message, message_size, "cannot create file: %s", path);
            mpng_dwriter_free(w);
            return NULL;
        }
        setvbuf(w->file, NULL, _IOFBF, 1 << 18);
    }
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    mpng_dbe32(ihdr, width);
    mpng_dbe32(ihdr + 4, height);
    ihdr[8] = (uint8_t)w->bit_depth;
    ihdr[9] = 3; /* palette */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    uint8_t plte[768], trns[256];
    int last_translucent = -1;
    for (int i = 0; i < palette_size; i++) {
        memcpy(plte + i * 3, palette_rgba + i * 4, 3);
        trns[i] = palette_rgba[i * 4 + 3];
        if (trns[i] != 255) last_translucent = i;
    }
    int ok = mpng_dput(w, signature, 8) && mpng_dchunk(w, "IHDR", NULL, 0, ihdr, 13, NULL, 0) &&
             mpng_dchunk(w, "PLTE", NULL, 0, plte, (size_t)palette_size * 3, NULL, 0) &&
             (last_translucent < 0 || mpng_dchunk(w, "tRNS", NULL, 0, trns, (size_t)last_translucent + 1, NULL, 0));
    if (!ok) {
        mpng_dmessage(message, message_size, "write failed (disk full?)");
        mpng_dwriter_free(w);
        return NULL;
    }
    return w;
}

int mpng_dwriter_set_filter(mpng_dwriter *w, int filter, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    if (w->rows_written > 0) {
        mpng_dmessage(message, message_size, "the filter changes after the first row");
        return MPNG_ERROR;
    }
    w->filter = filter == MPNG_FILTER_SUB ? 1 : 0;
    return MPNG_OK;
}

int mpng_dwriter_write_rows(mpng_dwriter *w, const uint8_t *rows, uint32_t count, size_t stride, char *message,
                            size_t message_size) {
    if (message && message_size) message[0] = 0;
    if (w->failed) {
        mpng_dmessage(message, message_size, "writer already failed");
        return MPNG_ERROR;
    }
    if (w->rows_written + count > w->height) {
        mpng_dmessage(message, message_size, "more rows than the image height");
        return MPNG_ERROR;
    }
    int shift_max = 8 - w->bit_depth;
    for (uint32_t r = 0; r < count; r++) {
        const uint8_t *indices = rows + (size_t)r * stride;
        /* Pack: the first pixel in the high bits, as PNG stores sub-byte depths. */
        if (w->bit_depth == 8) {
            memcpy(w->packed, indices, w->row_bytes);
        } else {
            memset(w->packed, 0, w->row_bytes);
            for (uint32_t x = 0; x < w->width; x++) {
                size_t bit = (size_t)x * (size_t)w->bit_depth;
                w->packed[bit >> 3] |= (uint8_t)(indices[x] << (shift_max - (int)(bit & 7)));
            }
        }
        uint8_t *out = w->band + w->band_size;
        /* A row of index 0 only (the transparent margin of a radar frame) is the same zeros
           under either filter, but its filter byte 0 continues the zero run of the row
           before instead of breaking it: 0.4% smaller frames on the anchor job. */
        int blank = w->filter && w->packed[0] == 0 && memcmp(w->packed, w->packed + 1, w->row_bytes - 1) == 0;
        out[0] = (uint8_t)(blank ? 0 : w->filter);
        if (w->filter && !blank) {
            /* Sub, with bytes as the unit: below 8 bits a "pixel" is one byte for filtering. */
            out[1] = w->packed[0];
            for (size_t i = 1; i < w->row_bytes; i++) out[1 + i] = (uint8_t)(w->packed[i] - w->packed[i - 1]);
        } else {
            memcpy(out + 1, w->packed, w->row_bytes);
        }
        w->band_size += w->row_bytes + 1;
        w->rows_written++;
        int last = w->rows_written == w->height;
        if (last || w->band_size + w->row_bytes + 1 > w->band_capacity) {
            if (!mpng_dflush(w, last, message, message_size)) {
                w->failed = 1;
                return MPNG_ERROR;
            }
        }
    }
    return MPNG_OK;
}

int mpng_dwriter_finish(mpng_dwriter *w, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    if (w->failed) {
        mpng_dmessage(message, message_size, "writer already failed");
        return MPNG_ERROR;
    }
    if (w->rows_written != w->height) {
        mpng_dmessage(message, message_size, "fewer rows than the image height");
        return MPNG_ERROR;
    }
    if (!mpng_dchunk(w, "IEND", NULL, 0, NULL, 0, NULL, 0) || (w->file && (fflush(w->file) != 0 || ferror(w->file)))) {
        w->failed = 1;
        mpng_dmessage(message, message_size, "write failed (disk full?)");
        return MPNG_ERROR;
    }
    return MPNG_OK;
}

const uint8_t *mpng_dwriter_bytes(const mpng_dwriter *w, size_t *size) {
    *size = w->memory_size;
    return w->memory;
}

uint64_t mpng_dwriter_bytes_written(const mpng_dwriter *w) { return w->written; }

void mpng_dwriter_free(mpng_dwriter *w) {
    if (w == NULL) return;
    if (w->file) fclose(w->file);
    if (w->compressor) libdeflate_free_compressor(w->compressor);
    free(w->memory);
    free(w->packed);
    free(w->band);
    free(w->compressed);
    free(w);
}
