#ifndef MATSITE_CJPEG_SHIM_H_PUBLIC
#define MATSITE_CJPEG_SHIM_H_PUBLIC

#include <stddef.h>
#include <stdint.h>

// A longjmp-free face of libjpeg(-turbo) for Swift. libjpeg reports errors through
// error_exit, which must not return: here it longjmps to a setjmp inside mjpeg_decode, so
// no Swift frame is ever unwound. Errors come back as a return code plus a message.

#define MJPEG_OK 0
#define MJPEG_ERROR 1
#define MJPEG_NEED_BUFFER 2

/// What decode may accept.
typedef struct mjpeg_limits {
    uint32_t max_width;
    uint32_t max_height;
    uint32_t max_scans;         /* progressive scans; a crafted file can hold thousands */
} mjpeg_limits;

/// What a JPEG is.
typedef struct mjpeg_info {
    uint32_t width;
    uint32_t height;
    int components;             /* as stored: 1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK */
    int color_space;            /* libjpeg's J_COLOR_SPACE of the file */
    int progressive;
    int quality;                /* the IJG quality (1-100) its luminance table matches best; 0 unknown */
} mjpeg_info;

/// Decodes a JPEG held in memory to 8-bit RGBA (alpha 255). Gray and YCbCr/RGB files only:
/// CMYK and YCCK are refused. Pass out == NULL to read only the header: the result is then
/// MJPEG_NEED_BUFFER with info filled in. Rows are written `out_stride` bytes apart.
/// Any libjpeg warning (corrupt or truncated data) fails the decode.
int mjpeg_decode(const uint8_t *data, size_t size, const mjpeg_limits *limits, mjpeg_info *info,
                 uint8_t *out, size_t out_capacity, size_t out_stride, char *message, size_t message_size);

/// Encodes 8-bit RGBA rows (`stride` bytes apart; alpha ignored) as a baseline JPEG at
/// `quality` 1-100 with 4:2:0 chroma and optimised Huffman tables. libjpeg's errors longjmp
/// back into this function, never through its caller. On success *out holds malloc'd
/// bytes the caller frees with mjpeg_free.
int mjpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int quality,
                 uint8_t **out, size_t *out_size, char *message, size_t message_size);

/// Frees bytes from mjpeg_encode.
void mjpeg_free(void *bytes);

#endif
