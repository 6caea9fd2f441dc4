/* CRC32C: SSE4.2 instruction when present, slice-by-8 tables otherwise (see kvpool_crc32c.h). */
#include "kvpool_crc32c.h"

#include <nmmintrin.h>
#include <pthread.h>
#include <string.h>

/* Reflected Castagnoli polynomial. */
#define CRC32C_POLY 0x82F63B78u

/* Bytes per lane of the three-lane hardware loop; three lanes hide the instruction's latency. */
#define HW_LANE_BYTES 2048

/*
 * Filled once by build_tables (pthread_once), read-only afterwards. crc_tables: slice-by-8.
 * shift_tables: the linear map "append HW_LANE_BYTES zero bytes" on a raw CRC register, one
 * table per register byte, used to join the three hardware lanes.
 */
static uint32_t crc_tables[8][256];
static uint32_t shift_tables[4][256];
static pthread_once_t crc_tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t crc = i;
        for (int bit = 0; bit < 8; bit++) {
            crc = (crc >> 1) ^ (CRC32C_POLY & (0u - (crc & 1u)));
        }
        crc_tables[0][i] = crc;
    }
    for (int k = 1; k < 8; k++) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t prev = crc_tables[k - 1][i];
            crc_tables[k][i] = (prev >> 8) ^ crc_tables[0][prev & 0xFFu];
        }
    }
    /* The CRC register update is linear: build the shift map from its image of each register bit. */
    uint32_t bit_image[32];
    for (int bit = 0; bit < 32; bit++) {
        uint32_t reg = 1u << bit;
        for (int n = 0; n < HW_LANE_BYTES; n++) {
            reg = crc_tables[0][reg & 0xFFu] ^ (reg >> 8);
        }
        bit_image[bit] = reg;
    }
    for (int byte = 0; byte < 4; byte++) {
        for (uint32_t value = 0; value < 256; value++) {
            uint32_t image = 0;
            for (int bit = 0; bit < 8; bit++) {
                if (value & (1u << bit)) {
                    image ^= bit_image[8 * byte + bit];
                }
            }
            shift_tables[byte][value] = image;
        }
    }
}

/* Raw register after HW_LANE_BYTES zero bytes. */
static uint32_t shift_lane(uint32_t reg) {
    return shift_tables[0][reg & 0xFFu] ^ shift_tables[1][(reg >> 8) & 0xFFu] ^ shift_tables[2][(reg >> 16) & 0xFFu] ^
           shift_tables[3][reg >> 24];
}

uint32_t kvpool_crc32c_portable(uint32_t crc, const void *buf, size_t len) {
    pthread_once(&crc_tables_once, build_tables);
    const unsigned char *p = buf;
    uint32_t c = ~crc;
    while (len > 0 && ((uintptr_t)p & 7u) != 0) {
        c = crc_tables[0][(c ^ *p++) & 0xFFu] ^ (c >> 8);
        len--;
    }
    /* Eight bytes per step, little-endian: the first byte has seven bytes after it, hence table 7. */
    while (len >= 8) {
        uint64_t word;
        memcpy(&word, p, sizeof word);
        word ^= c;
        c = crc_tables[7][word & 0xFFu] ^ crc_tables[6][(word >> 8) & 0xFFu] ^
            crc_tables[5][(word >> 16) & 0xFFu] ^ crc_tables[4][(word >> 24) & 0xFFu] ^
            crc_tables[3][(word >> 32) & 0xFFu] ^ crc_tables[2][(word >> 40) & 0xFFu] ^
            crc_tables[1][(word >> 48) & 0xFFu] ^ crc_tables[0][word >> 56];
        p += 8;
        len -= 8;
    }
    while (len > 0) {
        c = crc_tables[0][(c ^ *p++) & 0xFFu] ^ (c >> 8);
        len--;
    }
    return ~c;
}

/* Compiled for SSE4.2 only here, so the library still loads and runs on CPUs without it. */
__attribute__((target("sse4.2"))) uint32_t kvpool_crc32c_hw(uint32_t crc, const void *buf, size_t len) {
    const unsigned char *p = buf;
    uint32_t c = ~crc;
    while (len > 0 && ((uintptr_t)p & 7u) != 0) {
        c = _mm_crc32_u8(c, *p++);
        len--;
    }
    uint64_t wide = c;
    if (len >= 3 * HW_LANE_BYTES) {
        pthread_once(&crc_tables_once, build_tables);
    }
    /*
     * Three independent lanes over consecutive blocks, joined by linearity:
     * crc(A || B) = shift(crc(A)) ^ crc_from_zero(B).
     */
    while (len >= 3 * HW_LANE_BYTES) {
        uint64_t lane0 = wide;
        uint64_t lane1 = 0;
        uint64_t lane2 = 0;
        for (size_t i = 0; i < HW_LANE_BYTES; i += 8) {
            uint64_t w0, w1, w2;
            memcpy(&w0, p + i, 8);
            memcpy(&w1, p + HW_LANE_BYTES + i, 8);
            memcpy(&w2, p + 2 * HW_LANE_BYTES + i, 8);
            lane0 = _mm_crc32_u64(lane0, w0);
            lane1 = _mm_crc32_u64(lane1, w1);
            lane2 = _mm_crc32_u64(lane2, w2);
        }
        wide = shift_lane(shift_lane((uint32_t)lane0) ^ (uint32_t)lane1) ^ (uint32_t)lane2;
        p += 3 * HW_LANE_BYTES;
        len -= 3 * HW_LANE_BYTES;
    }
    while (len >= 8) {
        uint64_t word;
        memcpy(&word, p, sizeof word);
        wide = _mm_crc32_u64(wide, word);
        p += 8;
        len -= 8;
    }
    c = (uint32_t)wide;
    while (len > 0) {
        c = _mm_crc32_u8(c, *p++);
        len--;
    }
    return ~c;
}

int32_t kvpool_crc32c_hw_available(void) {
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

uint32_t kvpool_crc32c(uint32_t crc, const void *buf, size_t len) {
    return kvpool_crc32c_hw_available() ? kvpool_crc32c_hw(crc, buf, len) : kvpool_crc32c_portable(crc, buf, len);
}
