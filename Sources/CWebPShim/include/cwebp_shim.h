#ifndef MATSITE_CWEBP_SHIM_H_PUBLIC
#define MATSITE_CWEBP_SHIM_H_PUBLIC

#include <stddef.h>
#include <stdint.h>

// A small face of libwebp for Swift: limits checked before any pixel memory is used,
// status codes turned into messages. (libwebp never longjmps; the shim keeps the libwebp
// structs and their ABI versions out of Swift.)

#define MWEBP_OK 0
#define MWEBP_ERROR 1
#define MWEBP_NEED_BUFFER 2

/// What decode may accept.
typedef struct mwebp_limits {
    uint32_t max_width;
    uint32_t max_height;
} mwebp_limits;

/// What a WebP is.
typedef struct mwebp_info {
    uint32_t width;
    uint32_t height;
    int has_alpha;
    int lossless;               /* 1 lossless (VP8L), 0 lossy (VP8), -1 mixed or unknown */
} mwebp_info;

/// Decodes a still WebP held in memory to 8-bit RGBA (not premultiplied). Animated WebP
/// is refused. Pass out == NULL to read only the header: the result is then
/// MWEBP_NEED_BUFFER with info filled in. Rows are written `out_stride` bytes apart.
int mwebp_decode(const uint8_t *data, size_t size, const mwebp_limits *limits, mwebp_info *info,
                 uint8_t *out, size_t out_capacity, size_t out_stride, char *message, size_t message_size);

/// Encodes 8-bit RGBA as lossless WebP, keeping the colour of transparent pixels (exact).
/// `effort` 0-9 is libwebp's method (0 fast, 6 smallest; above 6 also tries harder).
/// On success *out holds malloc'd bytes the caller frees with mwebp_free.
int mwebp_encode_lossless(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int effort,
                          uint8_t **out, size_t *out_size, char *message, size_t message_size);

/// Encodes 8-bit RGBA as lossy WebP (VP8, alpha kept losslessly) at `quality` 0-100, for
/// photographic frames. On success *out holds malloc'd bytes the caller frees with mwebp_free.
int mwebp_encode_lossy(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int quality,
                       uint8_t **out, size_t *out_size, char *message, size_t message_size);

/// Frees bytes from mwebp_encode_lossless and mwebp_encode_lossy.
void mwebp_free(void *bytes);

#endif
