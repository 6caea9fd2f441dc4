/* CRC32C: SSE4.2 instruction when present, slice-by-8 tables otherwise (see kvpool_crc32c.h). */
#include "kvpool_crc32c.h"

#include <nmmintrin.h>
#include <pthread.h>
#include <string.h>

/* Reflected Castagnoli polynomial. */
#define CRC32C_POLY 0x82F63B78u

/* Filled once by build_tables (pthread_once), read-only afterwards. */
static uint32_t crc_tables[8][256];
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
