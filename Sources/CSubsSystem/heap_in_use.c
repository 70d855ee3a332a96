// mallinfo2(3), which Swift's Glibc module does not export (malloc.h is not in it). Not risky: it
// only reads the allocator's statistics (under the allocator's own locks) and returns them by
// value. The remote budget reads it to know what a command holds of decoded answers.

#include "CSubsSystem.h"

#include <malloc.h>

size_t subs_heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}
