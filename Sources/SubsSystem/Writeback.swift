// Linux's sync_file_range(2) (writeback.c: Swift's Glibc module does not export it).

import CSubsSystem

/// Starts writing `count` bytes of `fd` from `offset` out to disk without waiting: a hint that
/// makes a later fsync wait for less. Its failure changes nothing and is ignored.
public func startWriteback(fd: Int32, offset: Int64, count: Int64) {
    _ = subs_start_writeback(fd, offset, count)
}
