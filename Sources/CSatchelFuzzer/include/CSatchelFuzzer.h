#ifndef C_SATCHEL_FUZZER_H
#define C_SATCHEL_FUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for programs that keep their own `main`. Linked only into the builds scripts/fuzz makes
/// (libclang_rt.fuzzer_no_main); other builds must not call it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
