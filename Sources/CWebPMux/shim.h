#ifndef MATSITE_CWEBPMUX_SHIM_H
#define MATSITE_CWEBPMUX_SHIM_H
#include <webp/encode.h>
#include <webp/mux.h>
#endif
