// Safety: a read of a mapped page that lies beyond the end of a file truncated by another
// program raises SIGBUS, which kills the process. This installs (once, the first time a range is
// registered) a SIGBUS handler that, when the fault lies in a registered store mapping, maps a
// page of zeros over the faulting page and flags that range; the load is then retried and reads
// zeros, and the reader reports the store as changed. Any other SIGBUS restores the previous
// disposition, under which the retried access faults again (and kills, as before). What makes
// the handler sound: (1) it touches only static storage, zero-initialised at load time or written
// before the handler is installed (`page_size`, `previous`), through C11 lock-free atomics —
// nothing is allocated or initialised lazily; (2) the table is read with a seqlock per slot, so
// a range being registered or unregistered on another thread is never half-seen, and it is
// written only under `table_lock` by ordinary code; (3) its calls are async-signal-safe:
// sigaction(2), and mmap(2) issued as the raw system call through syscall(2) — POSIX does not
// list mmap as async-signal-safe because it need not be a system call, but on Linux it is one,
// with no user-space state (no lock, no allocation, no sanitizer interceptor on this path), and
// the kernel replaces the page atomically; errno is saved and restored; (4) a range is
// unregistered before it is unmapped and only once no thread reads it any more (the owner of the
// mapping outlives every read of it — the same rule that keeps the reads themselves valid), so a
// zero page is only ever put inside a live store mapping. A fault in a slot being changed is not
// that slot's (by (4) nobody reads a range while it is being registered or unregistered).

#define _GNU_SOURCE
#include "CSubsSystem.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(ATOMIC_LONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2,
               "the SIGBUS handler needs lock-free atomics");

enum { slot_count = 64 };

struct slot {
    /// Even: stable; odd: being changed. Bumped twice by every change.
    atomic_ulong sequence;
    atomic_uintptr_t start;   // 0: free
    atomic_uintptr_t end;
    atomic_int faulted;
};

static struct slot table[slot_count];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_long page_size;
static struct sigaction previous;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static atomic_int installed;

/// The slot whose live range holds `address`, or -1. Async-signal-safe (atomic loads only).
static int slot_holding(uintptr_t address) {
    for (int i = 0; i < slot_count; i++) {
        unsigned long before = atomic_load_explicit(&table[i].sequence, memory_order_acquire);
        if (before & 1) continue;
        uintptr_t start = atomic_load_explicit(&table[i].start, memory_order_relaxed);
        uintptr_t end = atomic_load_explicit(&table[i].end, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&table[i].sequence, memory_order_relaxed) != before) continue;
        if (start != 0 && address >= start && address < end) return i;
    }
    return -1;
}

static void on_sigbus(int signal, siginfo_t *info, void *context) {
    (void)signal;
    (void)context;
    int saved = errno;
    long page = atomic_load_explicit(&page_size, memory_order_acquire);
    int slot = (info != NULL && page > 0) ? slot_holding((uintptr_t)info->si_addr) : -1;
    if (slot >= 0) {
        uintptr_t at = (uintptr_t)info->si_addr & ~((uintptr_t)page - 1);
        long zeros = syscall(SYS_mmap, (void *)at, (size_t)page, PROT_READ,
                             MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (zeros != -1) {
            atomic_store_explicit(&table[slot].faulted, 1, memory_order_release);
            errno = saved;
            return;   // the load is retried and now reads zeros
        }
    }
    // Not a store page (or no page could be put there): the previous disposition takes over,
    // and the retried access faults again under it.
    sigaction(SIGBUS, &previous, NULL);
    errno = saved;
}

static void install(void) {
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return;
    atomic_store_explicit(&page_size, page, memory_order_release);
    // `previous` is read first, then the handler installed: it is complete before any SIGBUS
    // can reach the handler.
    if (sigaction(SIGBUS, NULL, &previous) != 0) return;
    struct sigaction action = {0};
    action.sa_sigaction = on_sigbus;
    // No SA_NODEFER: a fault inside the handler itself would kill rather than recurse.
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGBUS, &action, NULL) != 0) return;
    atomic_store_explicit(&installed, 1, memory_order_release);
}

int subs_mapping_guard_register(const void *start, size_t length) {
    pthread_once(&install_once, install);
    if (!atomic_load_explicit(&installed, memory_order_acquire) || start == NULL || length == 0) return -1;
    int found = -1;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < slot_count; i++) {
        if (atomic_load_explicit(&table[i].start, memory_order_relaxed) != 0) continue;
        unsigned long sequence = atomic_load_explicit(&table[i].sequence, memory_order_relaxed);
        atomic_store_explicit(&table[i].sequence, sequence + 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_release);
        atomic_store_explicit(&table[i].faulted, 0, memory_order_relaxed);
        atomic_store_explicit(&table[i].end, (uintptr_t)start + length, memory_order_relaxed);
        atomic_store_explicit(&table[i].start, (uintptr_t)start, memory_order_relaxed);
        atomic_store_explicit(&table[i].sequence, sequence + 2, memory_order_release);
        found = i;
        break;
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

void subs_mapping_guard_unregister(int slot) {
    if (slot < 0 || slot >= slot_count) return;
    pthread_mutex_lock(&table_lock);
    unsigned long sequence = atomic_load_explicit(&table[slot].sequence, memory_order_relaxed);
    atomic_store_explicit(&table[slot].sequence, sequence + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&table[slot].start, 0, memory_order_relaxed);
    atomic_store_explicit(&table[slot].end, 0, memory_order_relaxed);
    atomic_store_explicit(&table[slot].faulted, 0, memory_order_relaxed);
    atomic_store_explicit(&table[slot].sequence, sequence + 2, memory_order_release);
    pthread_mutex_unlock(&table_lock);
}

int subs_mapping_guard_faulted(int slot) {
    if (slot < 0 || slot >= slot_count) return 0;
    return atomic_load_explicit(&table[slot].faulted, memory_order_acquire);
}

int subs_mapping_guard_capacity(void) {
    return slot_count;
}
