#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A fresh path in a private folder under /dev/shm (tmpfs), else under /tmp; the caller removes both. */
static int temp_file(char *dir, size_t dir_len, char *file, size_t file_len) {
    const char *bases[] = {"/dev/shm", "/tmp"};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        snprintf(dir, dir_len, "%s/kvpool-segment-test-XXXXXX", bases[i]);
        if (mkdtemp(dir) != NULL) {
            snprintf(file, file_len, "%s/segment-0.mem", dir);
            return 0;
        }
    }
    return -1;
}

static void file_segment_keeps_its_bytes_for_the_next_mapping(void) {
    char dir[128];
    char file[192];
    CHECK(temp_file(dir, sizeof dir, file, sizeof file) == 0);
    kvpool_segment seg;
    CHECK(kvpool_segment_map_file(file, 10000, KVPOOL_HUGE_NONE, -1, 0, &seg) == 0);
    uint64_t page = kvpool_page_size();
    CHECK(seg.size == ((10000 + page - 1) / page) * page);
    CHECK((seg.flags & KVPOOL_SEGMENT_FILE_FRESH) != 0);
    CHECK((seg.flags & KVPOOL_SEGMENT_FILE_KEPT) == 0);
    unsigned char *p = (unsigned char *)(uintptr_t)seg.base;
    CHECK(p[0] == 0 && p[seg.size - 1] == 0);
    memset(p, 0x5A, seg.size);
    p[17] = 0x11;
    CHECK(kvpool_segment_destroy(seg.base, seg.size) == 0);

    /* as a replacement process would: the same file, the same size */
    CHECK(kvpool_segment_map_file(file, 10000, KVPOOL_HUGE_TRANSPARENT, -1, 0, &seg) == 0);
    CHECK((seg.flags & KVPOOL_SEGMENT_FILE_KEPT) != 0);
    CHECK((seg.flags & KVPOOL_SEGMENT_FILE_FRESH) == 0);
    p = (unsigned char *)(uintptr_t)seg.base;
    CHECK(p[0] == 0x5A && p[17] == 0x11 && p[seg.size - 1] == 0x5A);
    CHECK(kvpool_segment_destroy(seg.base, seg.size) == 0);

    /* another size: the old bytes must not show through */
    CHECK(kvpool_segment_map_file(file, 5 * page, KVPOOL_HUGE_NONE, -1, 0, &seg) == 0);
    CHECK((seg.flags & KVPOOL_SEGMENT_FILE_FRESH) != 0);
    CHECK(seg.size == 5 * page);
    p = (unsigned char *)(uintptr_t)seg.base;
    CHECK(p[0] == 0 && p[17] == 0 && p[seg.size - 1] == 0);
    CHECK(kvpool_segment_destroy(seg.base, seg.size) == 0);

    struct stat st;
    CHECK(stat(file, &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(unlink(file) == 0);
    CHECK(rmdir(dir) == 0);
}

static void file_segment_rejects_bad_arguments(void) {
    kvpool_segment seg;
    CHECK(kvpool_segment_map_file(NULL, 4096, KVPOOL_HUGE_NONE, -1, 0, &seg) == EINVAL);
    CHECK(kvpool_segment_map_file("", 4096, KVPOOL_HUGE_NONE, -1, 0, &seg) == EINVAL);
    CHECK(kvpool_segment_map_file("/tmp/x", 0, KVPOOL_HUGE_NONE, -1, 0, &seg) == EINVAL);
    CHECK(kvpool_segment_map_file("/tmp/x", 4096, 9, -1, 0, &seg) == EINVAL);
    CHECK(kvpool_segment_map_file("/tmp/x", 4096, KVPOOL_HUGE_NONE, -3, 0, &seg) == EINVAL);
    CHECK(kvpool_segment_map_file("/tmp/x", 4096, KVPOOL_HUGE_NONE, -1, 0, NULL) == EINVAL);
    CHECK(kvpool_segment_map_file("/tmp/x", UINT64_MAX, KVPOOL_HUGE_NONE, -1, 0, &seg) == EINVAL);
    /* a folder, a missing parent */
    CHECK(kvpool_segment_map_file("/tmp", 4096, KVPOOL_HUGE_NONE, -1, 0, &seg) != 0);
    CHECK(kvpool_segment_map_file("/nonexistent-kvpool-dir/segment", 4096, KVPOOL_HUGE_NONE, -1, 0, &seg) == ENOENT);
}

static void file_segment_refuses_a_symbolic_link(void) {
    char dir[128];
    char file[192];
    char link[224];
    CHECK(temp_file(dir, sizeof dir, file, sizeof file) == 0);
    snprintf(link, sizeof link, "%s/link.mem", dir);
    CHECK(symlink(file, link) == 0);
    kvpool_segment seg;
    CHECK(kvpool_segment_map_file(link, 4096, KVPOOL_HUGE_NONE, -1, 0, &seg) == ELOOP);
    CHECK(unlink(link) == 0);
    unlink(file);
    CHECK(rmdir(dir) == 0);
}

/* Bytes a pipe took from the file by splice (as sendfile gives them to a socket) keep their value when the
 * segment's pages are replaced and the range written again; pages only partly in the range keep their bytes. */
static void replaced_pages_leave_spliced_bytes_alone(void) {
    char dir[128];
    char file[192];
    CHECK(temp_file(dir, sizeof dir, file, sizeof file) == 0);
    uint64_t page = kvpool_page_size();
    kvpool_segment seg;
    CHECK(kvpool_segment_map_file(file, 4 * page, KVPOOL_HUGE_NONE, -1, 0, &seg) == 0);
    unsigned char *p = (unsigned char *)(uintptr_t)seg.base;
    memset(p, 0x5A, seg.size);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    int pipe_fds[2];
    CHECK(pipe(pipe_fds) == 0);
    loff_t from = (loff_t)page;
    CHECK(splice(fd, &from, pipe_fds[1], NULL, page, 0) == (ssize_t)page);

    /* the range [page - 10, 3 * page + 10): pages 1 and 2 lie wholly inside it */
    CHECK(kvpool_segment_replace_pages(seg.base, seg.size, page - 10, 2 * page + 20) == 0);
    CHECK(p[page - 11] == 0x5A && p[page - 10] == 0x5A && p[3 * page + 9] == 0x5A);
    CHECK(p[page] == 0 && p[3 * page - 1] == 0);
    memset(p + page, 0x77, 2 * page);

    unsigned char *spliced = malloc(page);
    CHECK(spliced != NULL);
    CHECK(read(pipe_fds[0], spliced, page) == (ssize_t)page);
    CHECK(spliced[0] == 0x5A && spliced[page - 1] == 0x5A);
    free(spliced);

    CHECK(kvpool_segment_replace_pages(seg.base, seg.size, 0, 5 * page) == EINVAL);
    CHECK(kvpool_segment_replace_pages(seg.base, seg.size, 10, 20) == 0); /* no whole page: nothing to do */
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    close(fd);
    CHECK(kvpool_segment_destroy(seg.base, seg.size) == 0);
    CHECK(unlink(file) == 0);
    CHECK(rmdir(dir) == 0);
}

const struct kvpool_test_case kvpool_segment_tests[] = {
    KVPOOL_TEST(replaced_pages_leave_spliced_bytes_alone),
    KVPOOL_TEST(file_segment_keeps_its_bytes_for_the_next_mapping),
    KVPOOL_TEST(file_segment_rejects_bad_arguments),
    KVPOOL_TEST(file_segment_refuses_a_symbolic_link),
    KVPOOL_TEST(create_rounds_up_to_page_and_zeroes),
    KVPOOL_TEST(rejects_bad_arguments),
    KVPOOL_TEST(explicit_request_reports_obtained_mode),
    KVPOOL_TEST(transparent_request_is_huge_page_aligned),
    KVPOOL_TEST(lock_and_numa_results_are_reported),
    KVPOOL_TEST(binding_to_missing_node_fails_softly),
    KVPOOL_TEST_END,
};
