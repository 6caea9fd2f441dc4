#include <stdlib.h>
#include <string.h>

#include "kvpool_copy.h"
#include "test_runner.h"

static void copy_moves_bytes_and_handles_overlap(void) {
    unsigned char buf[64];
    for (int i = 0; i < 64; i++) {
        buf[i] = (unsigned char)i;
    }
    kvpool_copy(buf + 8, buf, 32);
    for (int i = 0; i < 32; i++) {
        CHECK(buf[8 + i] == i);
    }
    kvpool_copy(buf, buf + 8, 32);
    for (int i = 0; i < 32; i++) {
        CHECK(buf[i] == i);
    }
    kvpool_copy(buf, buf + 1, 0);
    CHECK(buf[0] == 0);
}

static void batch_copies_every_entry_in_order(void) {
    unsigned char src[300];
    unsigned char dst[300];
    for (int i = 0; i < 300; i++) {
        src[i] = (unsigned char)(i * 7);
    }
    memset(dst, 0, sizeof dst);
    kvpool_copy_entry entries[3] = {
        {(uint64_t)(uintptr_t)dst, (uint64_t)(uintptr_t)src, 100},
        {(uint64_t)(uintptr_t)(dst + 100), (uint64_t)(uintptr_t)(src + 200), 100},
        /* reads what entry 0 wrote: entries run in order */
        {(uint64_t)(uintptr_t)(dst + 200), (uint64_t)(uintptr_t)dst, 100},
    };
    kvpool_copy_batch(entries, 3);
    CHECK(memcmp(dst, src, 100) == 0);
    CHECK(memcmp(dst + 100, src + 200, 100) == 0);
    CHECK(memcmp(dst + 200, src, 100) == 0);
    kvpool_copy_batch(NULL, 0);
}

static void bench_memcpy_copies_and_times(void) {
    size_t len = 1 << 16;
    unsigned char *src = malloc(len);
    unsigned char *dst = calloc(1, len);
    CHECK(src != NULL && dst != NULL);
    if (src != NULL && dst != NULL) {
        memset(src, 0x5A, len);
        int64_t nanos = kvpool_bench_memcpy(dst, src, len, 10);
        CHECK(nanos > 0);
        CHECK(memcmp(dst, src, len) == 0);
    }
    free(src);
    free(dst);
}

const struct kvpool_test_case kvpool_copy_tests[] = {
    KVPOOL_TEST(copy_moves_bytes_and_handles_overlap),
    KVPOOL_TEST(batch_copies_every_entry_in_order),
    KVPOOL_TEST(bench_memcpy_copies_and_times),
    KVPOOL_TEST_END,
};
