/* Copies between raw addresses (see kvpool_copy.h). */
#include "kvpool_copy.h"

#include <string.h>
#include <time.h>

void kvpool_copy(void *dst, const void *src, size_t len) {
    memmove(dst, src, len);
}

void kvpool_copy_batch(const kvpool_copy_entry *entries, size_t count) {
    for (size_t i = 0; i < count; i++) {
        memmove((void *)(uintptr_t)entries[i].dst, (const void *)(uintptr_t)entries[i].src,
                (size_t)entries[i].len);
    }
}

static int64_t monotonic_nanos(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

int64_t kvpool_bench_memcpy(void *dst, const void *src, size_t len, uint64_t iterations) {
    int64_t start = monotonic_nanos();
    for (uint64_t i = 0; i < iterations; i++) {
        memcpy(dst, src, len);
        /* Keeps the compiler from merging or dropping the repeated copies. */
        __asm__ __volatile__("" : : "r"(dst) : "memory");
    }
    return monotonic_nanos() - start;
}
