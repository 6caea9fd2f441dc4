#include <errno.h>
#include <string.h>

#include "kvpool_segment.h"
#include "test_runner.h"

static void create_rounds_up_to_page_and_zeroes(void) {
    kvpool_segment seg;
    CHECK(kvpool_segment_create(1000, KVPOOL_HUGE_NONE, -1, 0, &seg) == 0);
    CHECK(seg.size == kvpool_page_size());
    CHECK(seg.base % kvpool_page_size() == 0);
    CHECK(seg.huge_mode == KVPOOL_HUGE_NONE);
    CHECK(seg.flags == 0);
    unsigned char *p = (unsigned char *)(uintptr_t)seg.base;
    CHECK(p[0] == 0 && p[seg.size - 1] == 0);
    memset(p, 0xAB, seg.size);
    CHECK(kvpool_segment_destroy(seg.base, seg.size) == 0);
}

static void rejects_bad_arguments(void) {
    kvpool_segment seg;
    CHECK(kvpool_segment_create(0, KVPOOL_HUGE_NONE, -1, 0, &seg) == EINVAL);
    CHECK(kvpool_segment_create(4096, 7, -1, 0, &seg) == EINVAL);
    CHECK(kvpool_segment_create(4096, KVPOOL_HUGE_NONE, -2, 0, &seg) == EINVAL);
    CHECK(kvpool_segment_create(4096, KVPOOL_HUGE_NONE, -1, 0, NULL) == EINVAL);
    CHECK(kvpool_segment_create(UINT64_MAX, KVPOOL_HUGE_NONE, -1, 0, &seg) != 0);
    CHECK(kvpool_segment_destroy(0, 4096) == EINVAL);
}

/* Whatever the machine has reserved, an EXPLICIT request succeeds with some mode and reports it. */
static void explicit_request_reports_obtained_mode(void) {
    kvpool_segment seg;
    CHECK(kvpool_segment_create(3u << 20, KVPOOL_HUGE_EXPLICIT, -1, 0, &seg) == 0);
    CHECK(seg.huge_mode >= KVPOOL_HUGE_NONE && seg.huge_mode <= KVPOOL_HUGE_EXPLICIT);
    CHECK(seg.size >= (3u << 20));
    if (seg.huge_mode == KVPOOL_HUGE_EXPLICIT) {
        CHECK(seg.size % kvpool_huge_page_size() == 0);
    }
    memset((void *)(uintptr_t)seg.base, 1, seg.size);
    CHECK(kvpool_segment_destroy(seg.base, seg.size) == 0);
}

static void transparent_request_is_huge_page_aligned(void) {
    kvpool_segment seg;
    CHECK(kvpool_segment_create(4u << 20, KVPOOL_HUGE_TRANSPARENT, -1, 0, &seg) == 0);
    CHECK(seg.huge_mode != KVPOOL_HUGE_EXPLICIT);
    if (seg.huge_mode == KVPOOL_HUGE_TRANSPARENT) {
        CHECK(seg.base % kvpool_huge_page_size() == 0);
    }
    CHECK(kvpool_segment_destroy(seg.base, seg.size) == 0);
}

static void lock_and_numa_results_are_reported(void) {
    kvpool_segment seg;
    CHECK(kvpool_segment_create(1u << 20, KVPOOL_HUGE_NONE, 0, 1, &seg) == 0);
    CHECK(((seg.flags & KVPOOL_SEGMENT_LOCKED) != 0) != ((seg.flags & KVPOOL_SEGMENT_LOCK_FAILED) != 0));
    CHECK(((seg.flags & KVPOOL_SEGMENT_NUMA_BOUND) != 0) != ((seg.flags & KVPOOL_SEGMENT_NUMA_FAILED) != 0));
    CHECK(kvpool_segment_destroy(seg.base, seg.size) == 0);
}

static void binding_to_missing_node_fails_softly(void) {
    const int32_t nodes[] = {1000, 5000};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        kvpool_segment seg;
        CHECK(kvpool_segment_create(1u << 20, KVPOOL_HUGE_NONE, nodes[i], 0, &seg) == 0);
        CHECK((seg.flags & KVPOOL_SEGMENT_NUMA_FAILED) != 0);
        CHECK(seg.numa_errno != 0);
        CHECK(kvpool_segment_destroy(seg.base, seg.size) == 0);
    }
}

const struct kvpool_test_case kvpool_segment_tests[] = {
    KVPOOL_TEST(create_rounds_up_to_page_and_zeroes),
    KVPOOL_TEST(rejects_bad_arguments),
    KVPOOL_TEST(explicit_request_reports_obtained_mode),
    KVPOOL_TEST(transparent_request_is_huge_page_aligned),
    KVPOOL_TEST(lock_and_numa_results_are_reported),
    KVPOOL_TEST(binding_to_missing_node_fails_softly),
    KVPOOL_TEST_END,
};
