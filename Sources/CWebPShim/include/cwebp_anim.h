#ifndef MATSITE_CWEBP_ANIM_H_PUBLIC
#define MATSITE_CWEBP_ANIM_H_PUBLIC

#include <stddef.h>
#include <stdint.h>

// libwebpmux's animation encoder for Swift: RGB frames in, an animated WebP that loops
// forever out. Status codes are cwebp_shim.h's (MWEBP_OK, MWEBP_ERROR).

/// An animated WebP being encoded.
typedef struct mwebp_anim mwebp_anim;

/// Starts a `width` x `height` animation. `lossless` 1: every frame exact (VP8L) at
/// `effort` 0-9; 0: lossy at `quality` 0-100.
int mwebp_anim_begin(uint32_t width, uint32_t height, int lossless, int quality, int effort, mwebp_anim **out,
                     char *message, size_t message_size);

/// Adds an RGB frame (3 bytes a pixel, rows `stride` bytes apart) shown from `timestamp_ms`.
int mwebp_anim_add(mwebp_anim *anim, const uint8_t *rgb, size_t stride, int timestamp_ms, char *message,
                   size_t message_size);

/// Ends the animation at `end_ms` (the last frame's end). On success *out holds bytes the
/// caller frees with mwebp_free. The encoder is gone afterwards, whatever the result.
int mwebp_anim_finish(mwebp_anim *anim, int end_ms, uint8_t **out, size_t *out_size, char *message,
                      size_t message_size);

/// Drops an unfinished animation.
void mwebp_anim_discard(mwebp_anim *anim);

#endif
