// sync_file_range(2), which Swift's Glibc module does not export. Not risky: a plain system call
// that only starts writeback (the final fsync still guarantees the data is on disk).

#define _GNU_SOURCE
#include "CSubsSystem.h"

#include <fcntl.h>

int subs_start_writeback(int fd, int64_t offset, int64_t count) {
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
}
