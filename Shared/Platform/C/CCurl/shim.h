#ifndef CCurl_SHIM_H
#define CCurl_SHIM_H
#include <curl/curl.h>

/* Swift cannot call C variadic functions, so each curl_easy_setopt /
   curl_easy_getinfo / curl_multi_setopt argument type gets a typed wrapper. */

typedef size_t (*sf_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode sf_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sf_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sf_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sf_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sf_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sf_curl_easy_setopt_callback(CURL *handle, CURLoption option, sf_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sf_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode sf_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode sf_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

/* CURLMsg keeps the transfer result in an anonymous union; read it in C. */
static inline CURLcode sf_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
