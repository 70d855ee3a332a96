// malloc_trim(3) and mallopt(M_ARENA_MAX), which Swift's Glibc module does not export (glibc
// extensions). Not risky: they change how much free heap memory glibc keeps, never memory in use.
// `subs serve` builds indexes and answers searches on whichever of its threads took the request;
// glibc gives each thread an arena of its own (up to eight per core) and keeps what each freed:
// eight searches of 20 000 matches left it 90 MB larger, each outside change of the store ~20 MB.
// Two arenas and a trim after such work keep it near what it uses.

#include "CSubsSystem.h"

#include <malloc.h>

int subs_heap_trim(void) {
    return malloc_trim(0);
}

int subs_heap_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}
