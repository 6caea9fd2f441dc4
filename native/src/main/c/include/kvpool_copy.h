/*
 * Copies between raw addresses. Bounds are checked by the caller (the Java binding checks them
 * against segment sizes before calling): these functions trust their arguments.
 */
#ifndef KVPOOL_COPY_H
#define KVPOOL_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "kvpool_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One entry of a batched copy. Three 64-bit words: the layout is shared with the JNA binding. */
typedef struct kvpool_copy_entry {
    uint64_t dst;
    uint64_t src;
    uint64_t len;
} kvpool_copy_entry;

/* Copies len bytes; the ranges may overlap (memmove semantics). */
KVPOOL_API void kvpool_copy(void *dst, const void *src, size_t len);

/* Performs count copies in order, each with memmove semantics. */
KVPOOL_API void kvpool_copy_batch(const kvpool_copy_entry *entries, size_t count);

/*
 * Benchmark baseline: memcpy(dst, src, len) repeated iterations times, timed in-process.
 * Returns elapsed nanoseconds (monotonic clock).
 */
KVPOOL_API int64_t kvpool_bench_memcpy(void *dst, const void *src, size_t len, uint64_t iterations);

#ifdef __cplusplus
}
#endif

#endif
