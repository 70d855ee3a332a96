// malloc_trim(3), which Swift's Glibc module does not export (a glibc extension). Not risky: it
// only hands free heap memory back to the system. `subs serve` calls it after a version of its
// index was replaced: the old one was built on whichever thread found the change, and glibc keeps
// what a thread's arena freed unless told to give it back, so each outside change left ~20 MB.

#include "CSubsSystem.h"

#include <malloc.h>

int subs_heap_trim(void) {
    return malloc_trim(0);
}
