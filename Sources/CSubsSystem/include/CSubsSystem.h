// The C half of SubsSystem: what Swift cannot do soundly on its own. Each function is explained,
// with the invariants that make it safe, in the .c file that defines it.
//  - curl_calls.c: libcurl's variadic curl_easy_setopt/curl_easy_getinfo, called through their
//    true variadic type (libcurl itself is opened with dlopen by SubsSystem, never linked).
//  - mapping_guard.c: the SIGBUS handler that turns a page a truncation took away from a
//    registered store mapping into zeros.
//  - byte_search.c, writeback.c, heap_trim.c: memmem, sync_file_range, malloc_trim and mallopt,
//    GNU/Linux calls Swift's Glibc module does not export.
//  - crc32c.c: CRC-32C with SSE4.2's crc32 instruction when the CPU has it, else slicing-by-8.
//  - interrupt.c: the SIGINT decision "remove the temporary file and exit" against "the store
//    is committed, finish", and the stop signals of `subs serve`.
// No libcurl header is needed: the few prototypes are declared here, in their ABI terms.

#ifndef CSUBSSYSTEM_H
#define CSUBSSYSTEM_H

#if !defined(__linux__)
#error "subs builds on Linux only: it relies on Linux's mmap/SIGBUS behaviour, sync_file_range and glibc (see the README)"
#endif

#include <stddef.h>
#include <stdint.h>

// MARK: libcurl (curl_calls.c)

/// A libcurl easy handle (CURL *), opaque.
typedef struct subs_curl subs_curl;
/// CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION: (bytes, size, count, userdata) -> bytes taken.
typedef size_t (*subs_curl_data_callback)(char *bytes, size_t size, size_t count, void *userdata);

/// curl_easy_setopt(handle, option, value) through `setopt`, the address dlsym gave for
/// "curl_easy_setopt", one function per kind of value (CURLOPTTYPE_LONG, _OBJECTPOINT/_STRINGPOINT/
/// _SLISTPOINT, _FUNCTIONPOINT, _OFF_T). Returns the CURLcode.
int subs_curl_setopt_long(void *setopt, subs_curl *handle, int option, long value);
int subs_curl_setopt_pointer(void *setopt, subs_curl *handle, int option, const void *value);
int subs_curl_setopt_callback(void *setopt, subs_curl *handle, int option, subs_curl_data_callback value);
int subs_curl_setopt_off_t(void *setopt, subs_curl *handle, int option, int64_t value);

/// curl_easy_getinfo(handle, info, &value) through `getinfo` (dlsym's "curl_easy_getinfo"):
/// CURLINFO_LONG, CURLINFO_STRING (a string owned by the handle), CURLINFO_OFF_T.
int subs_curl_getinfo_long(void *getinfo, subs_curl *handle, int info, long *value);
int subs_curl_getinfo_string(void *getinfo, subs_curl *handle, int info, const char **value);
int subs_curl_getinfo_off_t(void *getinfo, subs_curl *handle, int info, int64_t *value);

// MARK: store mappings that survive truncation (mapping_guard.c)

/// Guards `start..<start+length` (a read-only file mapping, `start` page-aligned): a SIGBUS
/// inside it maps a page of zeros there and flags the slot. Returns the slot, or -1 when every
/// slot is taken or the handler could not be installed (the range is then NOT guarded).
int subs_mapping_guard_register(const void *start, size_t length);
/// Ends the guard; call before unmapping, once no thread reads the range any more.
void subs_mapping_guard_unregister(int slot);
/// 1 when a read in the slot's range hit a page the file no longer had (zeros were read).
int subs_mapping_guard_faulted(int slot);
/// How many ranges can be guarded at once.
int subs_mapping_guard_capacity(void);

// MARK: Ctrl-C during a write, stop signals (interrupt.c)

/// Installs the SIGINT handler: unless a store was committed (or is being committed), it
/// removes the remembered temporary file, writes `message` to stderr and _exits with `status`.
/// Returns 0, or -1 (errno) when sigaction failed.
int subs_interrupt_install(const char *message, int status);
/// Remembers the temporary file being written (NULL or "": none).
void subs_interrupt_remember(const char *path);
/// Around the rename or link that commits a store: between the two, an interrupt is ignored;
/// after a successful commit every later interrupt is too. `begin` waits while another thread
/// changes the state, and forever once an interrupt has won (the process is ending). It returns
/// the token to hand to `end` (0 when no handler is installed: nothing to decide).
int subs_interrupt_commit_begin(void);
void subs_interrupt_commit_end(int token, int committed);

/// SIGINT and SIGTERM write one byte to `fd` (the write end of a pipe someone waits on).
/// Returns 0, or -1 (errno).
int subs_stop_signals_install(int fd);

// MARK: writeback (writeback.c)

/// sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE): start writing the range out, do
/// not wait. A hint: its result may be ignored.
int subs_start_writeback(int fd, int64_t offset, int64_t count);

// MARK: heap (heap_in_use.c)

/// The bytes glibc's allocator has handed out and not taken back (mallinfo2: small blocks and
/// mapped ones); 0 where mallinfo2 is missing.
size_t subs_heap_in_use(void);

// MARK: byte search (byte_search.c)

/// memmem(haystack, length, needle, needle_length): the first occurrence, or NULL.
const void *subs_find_bytes(const void *haystack, size_t length, const void *needle, size_t needle_length);

// MARK: the heap (heap_trim.c)

/// malloc_trim(0): hands the free memory of every malloc arena back to the system; 1 if some was.
int subs_heap_trim(void);
/// mallopt(M_ARENA_MAX, count): threads created from now on share at most `count` arenas; 1 on success.
int subs_heap_limit_arenas(int count);

// MARK: CRC-32C (crc32c.c)

/// The CRC-32C of `length` bytes at `data`, continuing `crc` (0 to start): the hardware
/// instruction when the CPU has it, else the portable tables.
uint32_t subs_crc32c(uint32_t crc, const void *data, size_t length);
/// The same with the portable tables only (the tests compare both).
uint32_t subs_crc32c_portable(uint32_t crc, const void *data, size_t length);
/// 1 when `subs_crc32c` uses the CPU's crc32 instruction.
int subs_crc32c_uses_hardware(void);

#endif
