#ifndef MATSITE_CDEFLATE_SHIM_H
#define MATSITE_CDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
