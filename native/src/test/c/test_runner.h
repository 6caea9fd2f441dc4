/* A minimal test runner: CHECK records a failure of the current test and goes on. */
#ifndef KVPOOL_TEST_RUNNER_H
#define KVPOOL_TEST_RUNNER_H

#include <stdio.h>

extern int kvpool_test_failed;

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
            kvpool_test_failed = 1;                                                       \
        }                                                                                 \
    } while (0)

#define CHECK_EQ_U32(expected, actual)                                                    \
    do {                                                                                  \
        unsigned long exp_ = (unsigned long)(expected), act_ = (unsigned long)(actual);   \
        if (exp_ != act_) {                                                               \
            fprintf(stderr, "  %s:%d: expected 0x%08lX but was 0x%08lX (%s)\n", __FILE__, \
                    __LINE__, exp_, act_, #actual);                                       \
            kvpool_test_failed = 1;                                                       \
        }                                                                                 \
    } while (0)

typedef void (*kvpool_test_fn)(void);

struct kvpool_test_case {
    const char *name;
    kvpool_test_fn fn;
};

/* Each test file exposes its cases; test_main.c runs them all. */
extern const struct kvpool_test_case kvpool_segment_tests[];
extern const struct kvpool_test_case kvpool_copy_tests[];
extern const struct kvpool_test_case kvpool_crc32c_tests[];
extern const struct kvpool_test_case kvpool_device_tests[];

#define KVPOOL_TEST(fn) {#fn, fn}
#define KVPOOL_TEST_END {NULL, NULL}

#endif
