#ifndef MATSITE_CWEBP_SHIM_H
#define MATSITE_CWEBP_SHIM_H
#include <webp/decode.h>
#include <webp/encode.h>
#endif
