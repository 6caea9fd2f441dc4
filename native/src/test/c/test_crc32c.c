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

static void clmul_matches_vectors(void) {
    if (!kvpool_crc32c_clmul_available()) {
        printf("  (no VPCLMULQDQ/AVX2 on this CPU: carry-less CRC32C not tested)\n");
        return;
    }
    check_vectors(kvpool_crc32c_clmul);
}

static void dispatch_matches_vectors(void) {
    check_vectors(kvpool_crc32c);
}

/* size bytes of a fixed pseudo-random sequence from seed (free them), or NULL after a failed CHECK. */
static unsigned char *random_bytes(size_t size, uint32_t seed) {
    unsigned char *data = malloc(size);
    CHECK(data != NULL);
    if (data == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < size; i++) {
        seed = seed * 1103515245u + 12345u;
        data[i] = (unsigned char)(seed >> 16);
    }
    return data;
}

/* Every length and alignment, and split updates, agree between the implementations. */
static void implementations_agree_on_lengths_alignments_and_updates(void) {
    unsigned char *data = random_bytes(100000 + 16, 12345);
    if (data == NULL) {
        return;
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

/*
 * The carry-less implementation against the portable one: lengths around its superblocks (3,584
 * bytes: 2,048 folded and three lanes of 512), every offset within a quadword, running checksums
 * split inside and between superblocks, and data that makes every fold carry (all ones).
 */
static void clmul_agrees_around_superblocks_and_updates(void) {
    if (!kvpool_crc32c_clmul_available()) {
        printf("  (no VPCLMULQDQ/AVX2 on this CPU: carry-less CRC32C not tested)\n");
        return;
    }
    size_t size = (1u << 20) + 64;
    unsigned char *data = random_bytes(size, 777);
    if (data == NULL) {
        return;
    }
    const size_t block = 3584;
    const size_t lengths[] = {block - 1, block,          block + 1,        block + 7,     2 * block - 1,
                              2 * block, 2 * block + 13, 7 * block + 4095, 65536,         100000,
                              1u << 20,  (1u << 20) - 3, 300 * block,      300 * block + 9};
    for (size_t offset = 0; offset < 9; offset++) {
        for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
            size_t len = lengths[i];
            if (offset + len > size) {
                continue;
            }
            uint32_t expected = kvpool_crc32c_portable(0x1234u, data + offset, len);
            CHECK_EQ_U32(expected, kvpool_crc32c_clmul(0x1234u, data + offset, len));
            size_t cuts[] = {1, block / 2, block, len / 3, len - 1};
            for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
                size_t cut = cuts[c] < len ? cuts[c] : len;
                uint32_t first = kvpool_crc32c_clmul(0x1234u, data + offset, cut);
                CHECK_EQ_U32(expected, kvpool_crc32c_clmul(first, data + offset + cut, len - cut));
            }
        }
    }
    memset(data, 0xFF, size);
    CHECK_EQ_U32(kvpool_crc32c_portable(0, data, size), kvpool_crc32c_clmul(0, data, size));
    CHECK_EQ_U32(kvpool_crc32c_portable(0xFFFFFFFFu, data + 1, 5 * block), kvpool_crc32c_clmul(0xFFFFFFFFu, data + 1, 5 * block));
    free(data);
}

const struct kvpool_test_case kvpool_crc32c_tests[] = {
    KVPOOL_TEST(portable_matches_vectors),
    KVPOOL_TEST(hardware_matches_vectors),
    KVPOOL_TEST(clmul_matches_vectors),
    KVPOOL_TEST(dispatch_matches_vectors),
    KVPOOL_TEST(implementations_agree_on_lengths_alignments_and_updates),
    KVPOOL_TEST(clmul_agrees_around_superblocks_and_updates),
    KVPOOL_TEST_END,
};
