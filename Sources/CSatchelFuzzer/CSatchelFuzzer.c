// The crash guard of `satchel-fuzz smoke` (libFuzzer's driver is only declared in the header).
#include "CSatchelFuzzer.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const int guarded[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE};
enum { guardedCount = sizeof(guarded) / sizeof(guarded[0]) };
static struct sigaction previous[guardedCount];
static char inputPath[4096];
static const uint8_t *volatile inputData;
static volatile size_t inputSize;

static void writeAll(int fd, const void *bytes, size_t count) {
    const char *cursor = bytes;
    while (count > 0) {
        ssize_t written = write(fd, cursor, count);
        if (written <= 0) return;
        cursor += written;
        count -= (size_t)written;
    }
}

// Only async-signal-safe calls: open, write, close, sigaction.
static void onCrash(int signal, siginfo_t *info, void *context) {
    (void)info;
    (void)context;
    const uint8_t *data = inputData;
    inputData = NULL;
    if (data != NULL) {
        int fd = open(inputPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            writeAll(fd, data, inputSize);
            close(fd);
        }
        static const char message[] = "\nsatchel-fuzz: crashed on an input, written to ";
        writeAll(STDERR_FILENO, message, sizeof(message) - 1);
        writeAll(STDERR_FILENO, inputPath, strlen(inputPath));
        writeAll(STDERR_FILENO, "\n", 1);
    }
    // Back to what handled the signal before; returning runs the faulting instruction (or abort's raise) again.
    for (int index = 0; index < guardedCount; index++) {
        if (guarded[index] == signal) sigaction(signal, &previous[index], NULL);
    }
    if (signal == SIGABRT || signal == SIGTRAP) raise(signal);
}

int satchel_fuzz_guard_install(const char *path) {
    size_t length = strlen(path);
    if (length >= sizeof(inputPath)) return -1;
    memcpy(inputPath, path, length + 1);
    // Installed once: later calls only change the path (installing again would chain the handler to itself).
    static int installed = 0;
    if (installed) return 0;
    // A stack of its own, so that a stack overflow can still be reported.
    stack_t stack = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16, .ss_flags = 0};
    if (stack.ss_sp != NULL) sigaltstack(&stack, NULL);
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = onCrash;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (int index = 0; index < guardedCount; index++) {
        if (sigaction(guarded[index], &action, &previous[index]) != 0) return -1;
    }
    installed = 1;
    return 0;
}

void satchel_fuzz_guard_input(const uint8_t *data, size_t size) {
    inputSize = size;
    inputData = data;
}
