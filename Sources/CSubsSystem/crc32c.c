// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of each journal line and of
// the store's sampled ends (StoreStamp). Every reader checks every journal line, so its speed is
// the cost of reading a journal: SSE4.2's crc32 instruction where the CPU has it (checked at run
// time: a binary built here may run on an older CPU), else slicing-by-8 tables, eight bytes a step.
// Safety: pure functions over a byte range the caller owns for the call (`data` points to
// `length` readable bytes; nothing is written but the tables, built once under pthread_once).
// Unaligned 8-byte loads go through memcpy (defined behaviour; compiled to a plain load).

#include "CSubsSystem.h"

#include <pthread.h>
#include <string.h>

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = table[0][n];
        for (int k = 1; k < 8; k++) {
            c = table[0][c & 0xFF] ^ (c >> 8);
            table[k][n] = c;
        }
    }
}

uint32_t subs_crc32c_portable(uint32_t crc, const void *data, size_t length) {
    pthread_once(&table_once, make_table);
    const unsigned char *p = data;
    uint32_t c = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word);
#endif
        uint32_t low = (uint32_t)word ^ c;
        uint32_t high = (uint32_t)(word >> 32);
        c = table[7][low & 0xFF] ^ table[6][(low >> 8) & 0xFF] ^ table[5][(low >> 16) & 0xFF] ^ table[4][low >> 24]
          ^ table[3][high & 0xFF] ^ table[2][(high >> 8) & 0xFF] ^ table[1][(high >> 16) & 0xFF] ^ table[0][high >> 24];
        p += 8;
        length -= 8;
    }
    while (length--) c = table[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
    return ~c;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const unsigned char *p, size_t length) {
    uint64_t c = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
        p += 8;
        length -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (length--) c32 = _mm_crc32_u8(c32, *p++);
    return ~c32;
}
#endif

int subs_crc32c_uses_hardware(void) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
#else
    return 0;
#endif
}

uint32_t subs_crc32c(uint32_t crc, const void *data, size_t length) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2")) return crc32c_sse42(crc, data, length);
#endif
    return subs_crc32c_portable(crc, data, length);
}
