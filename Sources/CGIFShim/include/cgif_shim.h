#ifndef MATSITE_CGIF_SHIM_H_PUBLIC
#define MATSITE_CGIF_SHIM_H_PUBLIC

#include <stddef.h>
#include <stdint.h>

// A small face of giflib for Swift: an animated GIF written to memory frame by frame,
// with giflib's error codes turned into messages. (giflib never longjmps; its structs stay
// on this side.)

#define MGIF_OK 0
#define MGIF_ERROR 1

/// An animated GIF being written.
typedef struct mgif_writer mgif_writer;

/// Starts a `width` x `height` GIF89a that loops forever (NETSCAPE2.0 extension), with
/// `palette_rgb` (`colors` RGB triples, 1-256) as its global colour table, or none (NULL).
int mgif_begin(uint32_t width, uint32_t height, const uint8_t *palette_rgb, int colors, mgif_writer **out,
               char *message, size_t message_size);

/// Adds a frame: the rectangle (`left`, `top`, `width`, `height`) of palette indices
/// (`width` bytes a row, packed), its own colour table (`colors` RGB triples, 1-256; NULL:
/// the global one), shown for `delay_cs` hundredths of a second. `transparent` is the index that keeps the
/// previous frame's pixel (-1: none); frames are never disposed, so that works.
int mgif_add_frame(mgif_writer *writer, const uint8_t *indices, uint32_t left, uint32_t top, uint32_t width,
                   uint32_t height, const uint8_t *palette_rgb, int colors, int transparent, int delay_cs,
                   char *message, size_t message_size);

/// Encodes one frame on its own, as mgif_add_frame would write it into a `screen_width` x
/// `screen_height` GIF: its control extension, image descriptor, colour table (with
/// `local_table`; else it is coded in `palette_rgb` as the GIF's global table) and image
/// data. Frames encoded apart (on several threads) are put together by mgif_add_encoded.
/// On success *out holds bytes the caller frees with mgif_free.
int mgif_encode_frame(uint32_t screen_width, uint32_t screen_height, const uint8_t *indices, uint32_t left, uint32_t top,
                      uint32_t width, uint32_t height, const uint8_t *palette_rgb, int colors, int local_table,
                      int transparent, int delay_cs, uint8_t **out, size_t *out_size, char *message,
                      size_t message_size);

/// Appends a frame from mgif_encode_frame.
int mgif_add_encoded(mgif_writer *writer, const uint8_t *frame, size_t size, char *message, size_t message_size);

/// Ends the file. On success *out holds malloc'd bytes the caller frees with mgif_free.
/// The writer is gone afterwards, whatever the result.
int mgif_finish(mgif_writer *writer, uint8_t **out, size_t *out_size, char *message, size_t message_size);

/// Drops an unfinished writer.
void mgif_discard(mgif_writer *writer);

/// Frees bytes from mgif_finish.
void mgif_free(void *bytes);

#endif
