#ifndef MATSITE_CFUZZ_DRIVER_H
#define MATSITE_CFUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry for programs that bring their own main (compiler-rt FuzzerDriver).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// Runs libFuzzer with this process's arguments and `callback` as the fuzz target.
int matsite_fuzz_main(int argc, char **argv, int (*callback)(const uint8_t *data, size_t size));

#endif
