/* The compression limit of the anchor job: the least work any PNG pipeline must do to make
 * one frame from its tiles, with no HTTP, no threads and nothing else around it. For each
 * frame: read the tiles' PNGs from disk, inflate and unfilter them, copy the frame's window
 * out of the mosaic, and write one PNG (every row filter 0) deflated once.
 *
 *   cc -O2 -o limit bench/limit.c -lz [-DWITH_LIBDEFLATE -ldeflate]
 *   limit TILES_DIR OUT_DIR FIRST_FRAME LAST_FRAME X0 Y0 NX NY CROP_X CROP_Y WIDTH HEIGHT LEVEL [zlib|libdeflate]
 *
 * TILES_DIR/frames/<f>/7/<x>/<y>.png -> OUT_DIR/<f>.png. Palette (8-bit, PLTE + tRNS kept)
 * and 8-bit RGB/RGBA tiles; a mosaic's tiles share one colour type (the corpus's do). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef WITH_LIBDEFLATE
#include <libdeflate.h>
#endif

static void fail(const char *what, const char *where) {
    fprintf(stderr, "limit: %s: %s\n", what, where);
    exit(1);
}

static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

static void put32(unsigned char *p, uint32_t v) {
    p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

typedef struct {
    int width, height, channels, type;
    unsigned char *pixels;             /* width * channels bytes a row, unfiltered */
    unsigned char plte[768], trns[256];
    int plte_len, trns_len;
} Tile;

static unsigned char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) fail("cannot open", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc(n);
    if (fread(data, 1, n, f) != (size_t)n) fail("cannot read", path);
    fclose(f);
    *size = n;
    return data;
}

static int paeth(int a, int b, int c) {
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static void read_tile(const char *path, Tile *t) {
    size_t size;
    unsigned char *png = slurp(path, &size);
    if (size < 33 || memcmp(png, "\x89PNG\r\n\x1a\n", 8)) fail("not a PNG", path);
    unsigned char *idat = NULL;
    size_t idat_len = 0;
    for (size_t at = 8; at + 12 <= size;) {
        uint32_t len = be32(png + at);
        const unsigned char *tag = png + at + 4, *body = png + at + 8;
        if (at + 12 + len > size) fail("truncated chunk", path);
        if (!memcmp(tag, "IHDR", 4)) {
            t->width = be32(body);
            t->height = be32(body + 4);
            t->type = body[9];
            if (body[8] != 8 || body[12]) fail("only 8-bit, non-interlaced tiles", path);
            t->channels = t->type == 3 ? 1 : t->type == 2 ? 3 : t->type == 6 ? 4 : 0;
            if (!t->channels) fail("colour type not handled", path);
        } else if (!memcmp(tag, "PLTE", 4) && len <= 768) {
            memcpy(t->plte, body, len);
            t->plte_len = len;
        } else if (!memcmp(tag, "tRNS", 4) && len <= 256) {
            memcpy(t->trns, body, len);
            t->trns_len = len;
        } else if (!memcmp(tag, "IDAT", 4)) {
            idat = realloc(idat, idat_len + len);
            memcpy(idat + idat_len, body, len);
            idat_len += len;
        }
        at += 12 + len;
    }
    size_t stride = (size_t)t->width * t->channels, raw_len = (stride + 1) * t->height;
    unsigned char *raw = malloc(raw_len);
    uLongf got = raw_len;
    if (uncompress(raw, &got, idat, idat_len) != Z_OK || got != raw_len) fail("cannot inflate", path);
    t->pixels = malloc(stride * t->height);
    int bpp = t->channels;
    for (int y = 0; y < t->height; y++) {
        const unsigned char *in = raw + y * (stride + 1) + 1;
        unsigned char *row = t->pixels + y * stride, *up = y ? row - stride : NULL;
        int filter = in[-1];
        for (size_t i = 0; i < stride; i++) {
            int a = i >= (size_t)bpp ? row[i - bpp] : 0, b = up ? up[i] : 0, c = up && i >= (size_t)bpp ? up[i - bpp] : 0;
            int v = in[i];
            switch (filter) {
            case 0: break;
            case 1: v += a; break;
            case 2: v += b; break;
            case 3: v += (a + b) / 2; break;
            case 4: v += paeth(a, b, c); break;
            default: fail("bad filter", path);
            }
            row[i] = (unsigned char)v;
        }
    }
    free(raw);
    free(idat);
    free(png);
}

static void chunk(FILE *f, const char *tag, const unsigned char *body, uint32_t len) {
    unsigned char head[8];
    put32(head, len);
    memcpy(head + 4, tag, 4);
    uLong crc = crc32(crc32(0, head + 4, 4), body, len);
    unsigned char tail[4];
    put32(tail, (uint32_t)crc);
    fwrite(head, 1, 8, f);
    if (len) fwrite(body, 1, len, f);
    fwrite(tail, 1, 4, f);
}

int main(int argc, char **argv) {
    if (argc < 14) fail("usage", "limit TILES OUT FIRST LAST X0 Y0 NX NY CROPX CROPY W H LEVEL [zlib|libdeflate]");
    const char *tiles = argv[1], *out = argv[2];
    int first = atoi(argv[3]), last = atoi(argv[4]), x0 = atoi(argv[5]), y0 = atoi(argv[6]);
    int nx = atoi(argv[7]), ny = atoi(argv[8]), cx = atoi(argv[9]), cy = atoi(argv[10]);
    int w = atoi(argv[11]), h = atoi(argv[12]), level = atoi(argv[13]);
    int use_libdeflate = argc > 14 && !strcmp(argv[14], "libdeflate");
#ifndef WITH_LIBDEFLATE
    if (use_libdeflate) fail("built without libdeflate", "cc -DWITH_LIBDEFLATE ... -ldeflate");
#endif
    char path[4096];
    for (int f = first; f <= last; f++) {
        Tile *grid = calloc((size_t)nx * ny, sizeof(Tile));
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                snprintf(path, sizeof path, "%s/frames/%d/7/%d/%d.png", tiles, f, x0 + i, y0 + j);
                read_tile(path, &grid[j * nx + i]);
            }
        Tile *t0 = &grid[0];
        int ch = t0->channels, size = t0->width;
        size_t stride = (size_t)w * ch, raw_len = (stride + 1) * h;
        unsigned char *raw = malloc(raw_len);
        for (int y = 0; y < h; y++) {
            unsigned char *row = raw + y * (stride + 1);
            row[0] = 0;
            int my = cy + y, tj = my / size, ty = my % size;
            for (int x = 0; x < w;) {
                int mx = cx + x, ti = mx / size, tx = mx % size, run = size - tx < w - x ? size - tx : w - x;
                Tile *t = &grid[tj * nx + ti];
                memcpy(row + 1 + (size_t)x * ch, t->pixels + ((size_t)ty * size + tx) * ch, (size_t)run * ch);
                x += run;
            }
        }
        size_t bound = compressBound(raw_len);
        unsigned char *packed = malloc(bound);
        size_t packed_len = bound;
        if (use_libdeflate) {
#ifdef WITH_LIBDEFLATE
            struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
            packed_len = libdeflate_zlib_compress(c, raw, raw_len, packed, bound);
            libdeflate_free_compressor(c);
            if (!packed_len) fail("libdeflate failed", out);
#endif
        } else {
            uLongf n = bound;
            if (compress2(packed, &n, raw, raw_len, level) != Z_OK) fail("deflate failed", out);
            packed_len = n;
        }
        snprintf(path, sizeof path, "%s/%04d.png", out, f);
        FILE *png = fopen(path, "wb");
        if (!png) fail("cannot write", path);
        fwrite("\x89PNG\r\n\x1a\n", 1, 8, png);
        unsigned char ihdr[13] = {0};
        put32(ihdr, w);
        put32(ihdr + 4, h);
        ihdr[8] = 8;
        ihdr[9] = t0->type;
        chunk(png, "IHDR", ihdr, 13);
        if (t0->plte_len) chunk(png, "PLTE", t0->plte, t0->plte_len);
        if (t0->trns_len) chunk(png, "tRNS", t0->trns, t0->trns_len);
        chunk(png, "IDAT", packed, packed_len);
        chunk(png, "IEND", NULL, 0);
        fclose(png);
        for (int k = 0; k < nx * ny; k++) free(grid[k].pixels);
        free(grid);
        free(raw);
        free(packed);
    }
    return 0;
}
