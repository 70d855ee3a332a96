// Safety: curl_easy_setopt and curl_easy_getinfo are variadic C functions. Calling a variadic
// function through a non-variadic function type is undefined behaviour (on x86_64 the caller
// must set %al to the number of vector registers used; on Apple arm64 the variadic arguments go
// on the stack, not in registers), so Swift never calls them: Swift hands the address dlsym
// found to these wrappers, which call it through the prototype curl.h declares,
// `CURLcode f(CURL *, CURLoption, ...)`, passing exactly the type libcurl's va_arg reads for
// that kind of option: `long` (CURLOPTTYPE_LONG), a data pointer (OBJECTPOINT, STRINGPOINT,
// SLISTPOINT), a function pointer (FUNCTIONPOINT), `curl_off_t` (OFF_T; `long` = int64_t on
// 64-bit Linux), and for getinfo a pointer to `long`, `char *` or `curl_off_t`. CURLcode,
// CURLoption and CURLINFO are C enums whose values all fit an int, so they travel as int. The
// address must be that of libcurl's curl_easy_setopt (resp. curl_easy_getinfo): LibCurl.swift
// looks them up by those names in the library it opened, and nothing else reaches these.

#include "CSubsSystem.h"

typedef int (*subs_curl_setopt_fn)(subs_curl *handle, int option, ...);
typedef int (*subs_curl_getinfo_fn)(subs_curl *handle, int info, ...);

int subs_curl_setopt_long(void *setopt, subs_curl *handle, int option, long value) {
    return ((subs_curl_setopt_fn)setopt)(handle, option, value);
}

int subs_curl_setopt_pointer(void *setopt, subs_curl *handle, int option, const void *value) {
    // libcurl reads a `void *` / `char *` / `struct curl_slist *` (all the same representation).
    return ((subs_curl_setopt_fn)setopt)(handle, option, (void *)value);
}

int subs_curl_setopt_callback(void *setopt, subs_curl *handle, int option, subs_curl_data_callback value) {
    return ((subs_curl_setopt_fn)setopt)(handle, option, value);
}

int subs_curl_setopt_off_t(void *setopt, subs_curl *handle, int option, int64_t value) {
    _Static_assert(sizeof(int64_t) == 8, "curl_off_t is 64 bits");
    return ((subs_curl_setopt_fn)setopt)(handle, option, value);
}

int subs_curl_getinfo_long(void *getinfo, subs_curl *handle, int info, long *value) {
    return ((subs_curl_getinfo_fn)getinfo)(handle, info, value);
}

int subs_curl_getinfo_string(void *getinfo, subs_curl *handle, int info, const char **value) {
    return ((subs_curl_getinfo_fn)getinfo)(handle, info, value);
}

int subs_curl_getinfo_off_t(void *getinfo, subs_curl *handle, int info, int64_t *value) {
    return ((subs_curl_getinfo_fn)getinfo)(handle, info, value);
}
