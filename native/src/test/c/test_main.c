/* Runs every C unit test and prints "N passed, M failed"; exits non-zero when any failed. */
#include <stdio.h>

#include "test_runner.h"

int kvpool_test_failed;

int main(void) {
    const struct kvpool_test_case *suites[] = {kvpool_segment_tests, kvpool_copy_tests, kvpool_crc32c_tests,
                                               kvpool_device_tests};
    int passed = 0;
    int failed = 0;
    for (size_t s = 0; s < sizeof suites / sizeof suites[0]; s++) {
        for (const struct kvpool_test_case *t = suites[s]; t->name != NULL; t++) {
            kvpool_test_failed = 0;
            t->fn();
            printf("%s %s\n", kvpool_test_failed ? "FAIL" : "ok  ", t->name);
            if (kvpool_test_failed) {
                failed++;
            } else {
                passed++;
            }
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
