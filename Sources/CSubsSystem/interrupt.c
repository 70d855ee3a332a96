// Safety: Ctrl-C during a write must remove the temporary file being written and end the process
// (exit 130), unless the store has already been committed (renamed or linked into place) — then
// the command finishes normally, so a script never retries a write that happened. The SIGINT
// handler decides with one atomic state word that the writer's code also goes through, so the
// answer is race-free whichever thread the signal lands on, the writer's included. What makes it
// sound: (1) the handler touches only static storage — the state word (a C11 lock-free atomic),
// the path buffer, the message — nothing allocated or initialised lazily; the message and exit
// status are written before the handler is installed and never again; (2) the path buffer is
// written only by a thread that holds BUSY_PATH in the state, and read by the handler only after
// it won INTERRUPTED with a compare-and-swap, which no one can while BUSY_PATH is held, and after
// which no one takes BUSY_PATH again; (3) the handler never waits: finding BUSY_PATH (possibly
// held by the very thread it interrupted), it leaves PENDING, and the writer re-raises SIGINT as
// it lets go — the interrupt is delayed by the copy of a path, never lost; finding BUSY_COMMIT
// or COMMITTED it returns and the command goes on; (4) its calls are async-signal-safe:
// unlink(2), write(2), _exit(2), and errno is saved and restored. The stop signals of `subs
// serve` only write one byte to a pipe whose descriptor is an atomic int.

#define _GNU_SOURCE
#include "CSubsSystem.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the SIGINT handler needs lock-free atomics");

enum {
    busy_path = 1,      // a thread is changing `temporary`
    busy_commit = 2,    // a thread is committing a store
    committed = 4,      // a store was committed: every later interrupt is ignored
    interrupted = 8,    // the handler won: the process is ending, nothing may start
    pending = 16,       // an interrupt came during busy_path: re-raised when it ends
};

static atomic_int state;
static atomic_int armed;
static char temporary[4096];
static char message[256];
static size_t message_length;
static int exit_status;
static atomic_int message_written;

/// The process is ending on another thread (the handler is removing the file and exiting).
static void wait_for_the_end(void) {
    for (;;) {
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

/// Takes `busy` once no other thread holds a busy bit.
static void take(int busy) {
    for (;;) {
        int now = atomic_load(&state);
        if (now & interrupted) wait_for_the_end();
        if (now & (busy_path | busy_commit)) {
            struct timespec pause = {0, 100 * 1000};
            nanosleep(&pause, NULL);
            continue;
        }
        if (atomic_compare_exchange_weak(&state, &now, now | busy)) return;
    }
}

/// The handler's decision: 1 = end now (the temporary file is removed and no commit can start
/// any more), 0 = go on. Lock-free, never waits.
static int claim(void) {
    for (;;) {
        int now = atomic_load(&state);
        if (now & (committed | busy_commit | interrupted)) return 0;
        if (now & busy_path) {
            if (atomic_compare_exchange_weak(&state, &now, now | pending)) return 0;
            continue;
        }
        if (atomic_compare_exchange_weak(&state, &now, now | interrupted)) {
            if (temporary[0] != 0) unlink(temporary);
            return 1;
        }
    }
}

static void on_interrupt(int signal) {
    (void)signal;
    int saved = errno;
    if (claim()) {
        ssize_t written = write(2, message, message_length);
        (void)written;
        _exit(exit_status);
    }
    errno = saved;
}

int subs_interrupt_install(const char *text, int status) {
    if (atomic_exchange(&message_written, 1) == 0) {
        size_t length = text ? strlen(text) : 0;
        if (length >= sizeof message) length = sizeof message - 1;
        if (length > 0) memcpy(message, text, length);
        message_length = length;
        exit_status = status;
    }
    atomic_store(&armed, 1);
    struct sigaction action = {0};
    action.sa_handler = on_interrupt;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    return sigaction(SIGINT, &action, NULL);
}

void subs_interrupt_remember(const char *path) {
    if (!atomic_load(&armed)) return;
    take(busy_path);
    size_t length = path ? strlen(path) : 0;
    // A path too long to keep is not remembered: the next writer removes such a file instead.
    if (length > 0 && length < sizeof temporary) {
        memcpy(temporary, path, length + 1);
    } else {
        temporary[0] = 0;
    }
    int before = atomic_fetch_and(&state, ~(busy_path | pending));
    if (before & pending) raise(SIGINT);
}

int subs_interrupt_commit_begin(void) {
    if (!atomic_load(&armed)) return 0;
    take(busy_commit);
    return 1;
}

void subs_interrupt_commit_end(int token, int succeeded) {
    if (!token) return;
    int now = atomic_load(&state);
    while (!atomic_compare_exchange_weak(&state, &now, (now | (succeeded ? committed : 0)) & ~busy_commit)) {}
}

// MARK: stop signals

static atomic_int stop_fd = -1;

static void on_stop(int signal) {
    (void)signal;
    int saved = errno;
    int fd = atomic_load(&stop_fd);
    if (fd >= 0) {
        char byte = 1;
        ssize_t written = write(fd, &byte, 1);
        (void)written;
    }
    errno = saved;
}

int subs_stop_signals_install(int fd) {
    atomic_store(&stop_fd, fd);
    struct sigaction action = {0};
    action.sa_handler = on_stop;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGINT, &action, NULL) != 0) return -1;
    return sigaction(SIGTERM, &action, NULL);
}
