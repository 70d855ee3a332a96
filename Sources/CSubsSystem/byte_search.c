// memmem(3), which Swift's Glibc module does not export (it is a GNU extension). Not risky: a
// pure function over two byte ranges the caller owns; glibc's version is vectorised, which is why
// find's scan of a store's transactions uses it.

#define _GNU_SOURCE
#include "CSubsSystem.h"

#include <string.h>

const void *subs_find_bytes(const void *haystack, size_t length, const void *needle, size_t needle_length) {
    return memmem(haystack, length, needle, needle_length);
}
