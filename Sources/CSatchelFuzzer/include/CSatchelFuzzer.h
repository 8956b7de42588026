#ifndef C_SATCHEL_FUZZER_H
#define C_SATCHEL_FUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for programs that keep their own `main`. Linked only into the builds scripts/fuzz makes
/// (libclang_rt.fuzzer_no_main); other builds must not call it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// For runs without libFuzzer (`satchel-fuzz smoke`): on a crash (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT,
/// SIGFPE) the input being checked is written to `path` before the crash goes on to the handler that was there
/// before (Swift's backtracer, or the default). The handlers are installed on the first call; later calls change
/// the path. Returns 0, or -1 when the handlers could not be installed.
int satchel_fuzz_guard_install(const char *path);
/// The input the next checks read; it must stay valid until the next call (NULL: none).
void satchel_fuzz_guard_input(const uint8_t *data, size_t size);

#endif
