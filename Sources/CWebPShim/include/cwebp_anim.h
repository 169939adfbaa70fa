#ifndef MATSITE_CWEBP_ANIM_H_PUBLIC
#define MATSITE_CWEBP_ANIM_H_PUBLIC

#include <stddef.h>
#include <stdint.h>

// Animated WebP for Swift: RGB frames encoded apart (libwebp), joined into an animation
// that loops forever (libwebpmux). Status codes are cwebp_shim.h's (MWEBP_OK, MWEBP_ERROR).

/// One frame of an animation, encoded on its own (so frames can be encoded side by side):
/// a still WebP of the rectangle at (`x`, `y`) that changed since the previous frame.
typedef struct mwebp_frame {
    uint8_t *bytes;             /* a still WebP file, freed with mwebp_free */
    size_t size;
    uint32_t x, y, width, height;
    int blend;                  /* 1: its transparent pixels keep what is shown */
} mwebp_frame;

/// Encodes RGB canvas `rgb` (`width` x `height`, rows packed) as the frame after `previous`
/// (the canvas before it, or NULL for the first frame): only the rectangle that differs,
/// unchanged pixels transparent and blended when lossless. `lossless` 1: exact pixels
/// (VP8L) at `effort` 0-9 (libwebp's lossless preset); 0: lossy at `quality` 0-100, method
/// `effort` (at most 6).
int mwebp_anim_frame(const uint8_t *previous, const uint8_t *rgb, uint32_t width, uint32_t height, int lossless,
                     int quality, int effort, mwebp_frame *frame, char *message, size_t message_size);

/// Puts `count` frames from mwebp_anim_frame together as a `width` x `height` animation that
/// loops forever, frame i shown for `durations_ms[i]`. On success *out holds bytes the
/// caller frees with mwebp_free.
int mwebp_anim_assemble(uint32_t width, uint32_t height, const mwebp_frame *frames, const int *durations_ms, int count,
                        uint8_t **out, size_t *out_size, char *message, size_t message_size);

#endif
