#ifndef MATSITE_CGIF_SHIM_H
#define MATSITE_CGIF_SHIM_H
#include <gif_lib.h>
#endif
