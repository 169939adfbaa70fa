#ifndef MATSITE_CJPEG_SHIM_H
#define MATSITE_CJPEG_SHIM_H
/* jpeglib.h needs size_t and FILE declared before it. */
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#endif
