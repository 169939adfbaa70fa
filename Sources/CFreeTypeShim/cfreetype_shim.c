#include "cfreetype_shim.h"

#include <ft2build.h>
#include FT_FREETYPE_H
#include <stdio.h>
#include <stdlib.h>

struct mft_font {
    FT_Library library;
    FT_Face face;
};

int mft_open(const char *path, mft_font **out, char *message, size_t message_size) {
    *out = NULL;
    mft_font *font = calloc(1, sizeof *font);
    if (font == NULL) {
        snprintf(message, message_size, "out of memory");
        return MFT_ERROR;
    }
    FT_Error error = FT_Init_FreeType(&font->library);
    if (error) {
        free(font);
        snprintf(message, message_size, "cannot start FreeType (error %d)", error);
        return MFT_ERROR;
    }
    error = FT_New_Face(font->library, path, 0, &font->face);
    if (error) {
        FT_Done_FreeType(font->library);
        free(font);
        snprintf(message, message_size, "cannot open the font %s (FreeType error %d)", path, error);
        return MFT_ERROR;
    }
    *out = font;
    return MFT_OK;
}

void mft_close(mft_font *font) {
    if (font == NULL) return;
    FT_Done_Face(font->face);
    FT_Done_FreeType(font->library);
    free(font);
}

/* The next code point of UTF-8 text; malformed bytes become U+FFFD, one byte at a time. */
static uint32_t mft_next(const unsigned char **p) {
    const unsigned char *s = *p;
    uint32_t c = s[0];
    int extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
    if (extra < 0) {
        *p = s + 1;
        return 0xFFFD;
    }
    c &= extra == 0 ? 0x7F : extra == 1 ? 0x1F : extra == 2 ? 0x0F : 0x07;
    for (int i = 1; i <= extra; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *p = s + 1;
            return 0xFFFD;
        }
        c = (c << 6) | (s[i] & 0x3F);
    }
    *p = s + 1 + extra;
    return c;
}

/* Walks the text: each glyph rendered, its pen position handed to `draw` (may be NULL);
   returns the advance in pixels, or -1 on a FreeType error. */
typedef void (*mft_glyph_fn)(FT_GlyphSlot slot, int pen, void *context);

static int mft_walk(mft_font *font, const char *text, int px, mft_glyph_fn draw, void *context) {
    FT_Face face = font->face;
    if (FT_Set_Pixel_Sizes(face, 0, (FT_UInt)px)) return -1;
    int pen = 0;
    FT_UInt previous = 0;
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        uint32_t c = mft_next(&p);
        FT_UInt glyph = FT_Get_Char_Index(face, c);
        if (previous && glyph && FT_HAS_KERNING(face)) {
            FT_Vector delta;
            if (!FT_Get_Kerning(face, previous, glyph, FT_KERNING_DEFAULT, &delta)) pen += (int)(delta.x >> 6);
        }
        if (FT_Load_Glyph(face, glyph, draw ? FT_LOAD_RENDER : FT_LOAD_DEFAULT)) return -1;
        if (draw) draw(face->glyph, pen, context);
        pen += (int)(face->glyph->advance.x >> 6);
        previous = glyph;
    }
    return pen;
}

int mft_measure(mft_font *font, const char *text, int px, int *width, int *ascent, int *descent) {
    int advance = mft_walk(font, text, px, NULL, NULL);
    if (advance < 0) return MFT_ERROR;
    *width = advance;
    *ascent = (int)((font->face->size->metrics.ascender + 63) >> 6);
    *descent = (int)((-font->face->size->metrics.descender + 63) >> 6);
    return MFT_OK;
}

typedef struct {
    uint8_t *rgb;
    int width, height;
    size_t stride;
    int x, baseline;
    uint8_t r, g, b;
} mft_canvas;

static void mft_blend(FT_GlyphSlot slot, int pen, void *context) {
    mft_canvas *c = context;
    FT_Bitmap *bitmap = &slot->bitmap;
    if (bitmap->pixel_mode != FT_PIXEL_MODE_GRAY) return;
    int left = c->x + pen + slot->bitmap_left;
    int top = c->baseline - slot->bitmap_top;
    for (unsigned row = 0; row < bitmap->rows; row++) {
        int y = top + (int)row;
        if (y < 0 || y >= c->height) continue;
        const unsigned char *coverage = bitmap->buffer + (long)row * bitmap->pitch;
        uint8_t *out = c->rgb + (size_t)y * c->stride;
        for (unsigned col = 0; col < bitmap->width; col++) {
            int x = left + (int)col;
            /* Eight levels of coverage, not 256: the same look at label sizes, and a radar
               loop's pictures keep few enough colours for GIF's exact palette. */
            unsigned a = (coverage[col] * 7u + 127u) / 255u * 255u / 7u;
            if (x < 0 || x >= c->width || a == 0) continue;
            uint8_t *px = out + (size_t)x * 3;
            px[0] = (uint8_t)((c->r * a + px[0] * (255 - a) + 127) / 255);
            px[1] = (uint8_t)((c->g * a + px[1] * (255 - a) + 127) / 255);
            px[2] = (uint8_t)((c->b * a + px[2] * (255 - a) + 127) / 255);
        }
    }
}

int mft_draw(mft_font *font, const char *text, int px, uint8_t *rgb, int width, int height, size_t stride, int x,
             int baseline, uint8_t r, uint8_t g, uint8_t b) {
    mft_canvas canvas = {rgb, width, height, stride, x, baseline, r, g, b};
    return mft_walk(font, text, px, mft_blend, &canvas) < 0 ? MFT_ERROR : MFT_OK;
}
