#ifndef MATSITE_CFREETYPE_SHIM_H_PUBLIC
#define MATSITE_CFREETYPE_SHIM_H_PUBLIC

#include <stddef.h>
#include <stdint.h>

// A small face of FreeType for Swift: one font file, UTF-8 text measured and drawn into an
// RGB canvas at a pixel size. (FreeType never longjmps; its handles stay on this side.)

#define MFT_OK 0
#define MFT_ERROR 1

/// An open font face.
typedef struct mft_font mft_font;

/// Opens the font file at `path`.
int mft_open(const char *path, mft_font **out, char *message, size_t message_size);

/// Closes a font.
void mft_close(mft_font *font);

/// The advance width of `text` and the font's ascent and descent (positive, pixels) at `px`.
int mft_measure(mft_font *font, const char *text, int px, int *width, int *ascent, int *descent);

/// Draws `text` with its pen starting at `x` on the baseline `baseline` into an RGB canvas
/// (3 bytes a pixel, rows `stride` bytes apart), blending colour (r, g, b) by the glyphs'
/// coverage; whatever falls outside the canvas is clipped.
int mft_draw(mft_font *font, const char *text, int px, uint8_t *rgb, int width, int height, size_t stride, int x,
             int baseline, uint8_t r, uint8_t g, uint8_t b);

#endif
