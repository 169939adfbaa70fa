#ifndef MATSITE_CPNG_SHIM_H
#define MATSITE_CPNG_SHIM_H
#include <png.h>
#endif
