#include <stdlib.h>
#include <string.h>

#include "kvpool_crc32c.h"
#include "test_runner.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

/* Standard CRC32C check values (RFC 3720 appendix B.4 and the common "123456789" check). */
static void check_vectors(crc_fn crc) {
    unsigned char zeros[32];
    unsigned char ones[32];
    unsigned char ascending[32];
    unsigned char descending[32];
    memset(zeros, 0, sizeof zeros);
    memset(ones, 0xFF, sizeof ones);
    for (int i = 0; i < 32; i++) {
        ascending[i] = (unsigned char)i;
        descending[i] = (unsigned char)(31 - i);
    }
    CHECK_EQ_U32(0xE3069283u, crc(0, "123456789", 9));
    CHECK_EQ_U32(0x8A9136AAu, crc(0, zeros, 32));
    CHECK_EQ_U32(0x62A8AB43u, crc(0, ones, 32));
    CHECK_EQ_U32(0x46DD794Eu, crc(0, ascending, 32));
    CHECK_EQ_U32(0x113FDB5Cu, crc(0, descending, 32));
    CHECK_EQ_U32(0u, crc(0, "", 0));
}

static void portable_matches_vectors(void) {
    check_vectors(kvpool_crc32c_portable);
}

static void hardware_matches_vectors(void) {
    if (!kvpool_crc32c_hw_available()) {
        printf("  (no SSE4.2 on this CPU: hardware CRC32C not tested)\n");
        return;
    }
    check_vectors(kvpool_crc32c_hw);
}

static void dispatch_matches_vectors(void) {
    check_vectors(kvpool_crc32c);
}

/* Every length and alignment, and split updates, agree between the implementations. */
static void implementations_agree_on_lengths_alignments_and_updates(void) {
    size_t size = 100000 + 16;
    unsigned char *data = malloc(size);
    CHECK(data != NULL);
    if (data == NULL) {
        return;
    }
    uint32_t seed = 12345;
    for (size_t i = 0; i < size; i++) {
        seed = seed * 1103515245u + 12345u;
        data[i] = (unsigned char)(seed >> 16);
    }
    for (size_t offset = 0; offset < 9; offset++) {
        for (size_t len = 0; len < 600; len += (len < 70 ? 1 : 37)) {
            uint32_t portable = kvpool_crc32c_portable(0, data + offset, len);
            CHECK_EQ_U32(portable, kvpool_crc32c(0, data + offset, len));
            size_t half = len / 3;
            uint32_t split = kvpool_crc32c(kvpool_crc32c_portable(0, data + offset, half), data + offset + half,
                                           len - half);
            CHECK_EQ_U32(portable, split);
        }
    }
    /* lengths around the hardware path's three-lane blocks (3 x 2048 bytes) */
    const size_t long_lengths[] = {6143, 6144, 6145, 12288, 12295, 20000, 65536, 100000};
    for (size_t offset = 0; offset < 9; offset += 3) {
        for (size_t i = 0; i < sizeof long_lengths / sizeof long_lengths[0]; i++) {
            size_t len = long_lengths[i];
            CHECK_EQ_U32(kvpool_crc32c_portable(0, data + offset, len), kvpool_crc32c(0, data + offset, len));
            size_t half = len / 2 + 1;
            CHECK_EQ_U32(kvpool_crc32c_portable(0, data + offset, len),
                         kvpool_crc32c(kvpool_crc32c(0, data + offset, half), data + offset + half, len - half));
        }
    }
    free(data);
}

const struct kvpool_test_case kvpool_crc32c_tests[] = {
    KVPOOL_TEST(portable_matches_vectors),
    KVPOOL_TEST(hardware_matches_vectors),
    KVPOOL_TEST(dispatch_matches_vectors),
    KVPOOL_TEST(implementations_agree_on_lengths_alignments_and_updates),
    KVPOOL_TEST_END,
};
