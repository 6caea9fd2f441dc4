/*
 * CRC32C: carry-less multiplication (VPCLMULQDQ) beside the SSE4.2 instruction when the CPU has both,
 * the SSE4.2 instruction alone when it has that, slice-by-8 tables otherwise (see kvpool_crc32c.h).
 */
#include "kvpool_crc32c.h"

#include <immintrin.h>
#include <pthread.h>
#include <string.h>

/* Reflected Castagnoli polynomial, and the same polynomial in normal bit order (x^32 implied). */
#define CRC32C_POLY 0x82F63B78u
#define CRC32C_NORMAL 0x1EDC6F41u

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

/*
 * The carry-less path works in superblocks: FOLD_ITERATIONS blocks of 128 bytes folded with
 * VPCLMULQDQ, followed by three lanes of CLMUL_LANE_BYTES run through the crc32 instruction, both
 * in the same loop so that the vector and the integer units work at once. The folding constants and
 * the shift tables that join the parts are filled once (pthread_once), read-only afterwards.
 */
#define FOLD_ITERATIONS 16
#define LANE_QWORDS_PER_ITERATION 4
#define FOLD_BYTES (FOLD_ITERATIONS * 128)
#define CLMUL_LANE_BYTES (FOLD_ITERATIONS * LANE_QWORDS_PER_ITERATION * 8)
#define SUPERBLOCK_BYTES (FOLD_BYTES + 3 * CLMUL_LANE_BYTES)

/* {low, high} quadword multipliers that move a 16-byte block forward by 128, 32 and 16 bytes. */
static uint64_t fold_by_128[2];
static uint64_t fold_by_32[2];
static uint64_t fold_by_16[2];
/* "Append 1, 2 and 3 lanes of zero bytes" on a raw CRC register, as shift_tables. */
static uint32_t lane_shift_tables[3][4][256];
static pthread_once_t clmul_once = PTHREAD_ONCE_INIT;

/*
 * The CRC register update is linear: the map "append `bytes` zero bytes" is built from its image of
 * each register bit, one table per register byte. Needs crc_tables[0].
 */
static void build_shift_table(uint32_t table[4][256], size_t bytes) {
    uint32_t bit_image[32];
    for (int bit = 0; bit < 32; bit++) {
        uint32_t reg = 1u << bit;
        for (size_t n = 0; n < bytes; n++) {
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
            table[byte][value] = image;
        }
    }
}

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
    build_shift_table(shift_tables, HW_LANE_BYTES);
}
static uint32_t apply_shift(const uint32_t table[4][256], uint32_t reg) {
    return table[0][reg & 0xFFu] ^ table[1][(reg >> 8) & 0xFFu] ^ table[2][(reg >> 16) & 0xFFu] ^ table[3][reg >> 24];
}

/* Raw register after HW_LANE_BYTES zero bytes. */
static uint32_t shift_lane(uint32_t reg) {
    return apply_shift(shift_tables, reg);
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

/*
 * x^n mod P as a multiplier for PCLMULQDQ: in the reflected order of the data, where bit i of a
 * little-endian quadword is the term x^(63-i), so that bit 63-d holds x^d.
 */
static uint64_t power_multiplier(unsigned n) {
    uint32_t rem = 1;
    for (unsigned i = 0; i < n; i++) {
        uint32_t carry = rem & 0x80000000u;
        rem <<= 1;
        if (carry) {
            rem ^= CRC32C_NORMAL;
        }
    }
    uint64_t multiplier = 0;
    for (int d = 0; d < 32; d++) {
        if (rem & (1u << d)) {
            multiplier |= 1ull << (63 - d);
        }
    }
    return multiplier;
}

/*
 * A 16-byte block A moved forward by F bytes is A(x) * x^(8F) mod P; its low quadword holds the
 * higher terms (x^64 above its high quadword). A reflected carry-less product carries one extra
 * factor x, hence the "- 1" in each exponent.
 */
static void fold_multipliers(uint64_t multipliers[2], unsigned bytes) {
    multipliers[0] = power_multiplier(8 * bytes + 63);
    multipliers[1] = power_multiplier(8 * bytes - 1);
}

static void build_clmul_tables(void) {
    pthread_once(&crc_tables_once, build_tables);
    fold_multipliers(fold_by_128, 128);
    fold_multipliers(fold_by_32, 32);
    fold_multipliers(fold_by_16, 16);
    for (int lanes = 1; lanes <= 3; lanes++) {
        build_shift_table(lane_shift_tables[lanes - 1], (size_t)lanes * CLMUL_LANE_BYTES);
    }
}

#define CLMUL_TARGET __attribute__((target("avx2,vpclmulqdq,pclmul,sse4.2")))

/* Each 128-bit half of a, moved forward by the multipliers' distance, added to b. */
CLMUL_TARGET static inline __m256i fold(__m256i a, __m256i multipliers, __m256i b) {
    __m256i low = _mm256_clmulepi64_epi128(a, multipliers, 0x00);
    __m256i high = _mm256_clmulepi64_epi128(a, multipliers, 0x11);
    return _mm256_xor_si256(_mm256_xor_si256(low, high), b);
}

CLMUL_TARGET static inline __m256i broadcast(const uint64_t multipliers[2]) {
    return _mm256_set_epi64x((long long)multipliers[1], (long long)multipliers[0], (long long)multipliers[1],
                             (long long)multipliers[0]);
}

/*
 * One superblock from raw register reg. The register is added to the first four bytes (so the fold
 * starts from zero); the folded 128 bytes are brought down to 16, whose CRC from zero equals that
 * of the whole fold part; the three lanes run from zero and are joined by linearity:
 * crc(F || L0 || L1 || L2) = shift3(crc(F)) ^ shift2(crc(L0)) ^ shift1(crc(L1)) ^ crc(L2).
 */
CLMUL_TARGET static uint32_t clmul_superblock(uint32_t reg, const unsigned char *p) {
    const __m256i by128 = broadcast(fold_by_128);
    __m256i a0 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)p), _mm256_set_epi64x(0, 0, 0, reg));
    __m256i a1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i a2 = _mm256_loadu_si256((const __m256i *)(p + 64));
    __m256i a3 = _mm256_loadu_si256((const __m256i *)(p + 96));
    const unsigned char *block = p + 128;
    const unsigned char *lane = p + FOLD_BYTES;
    uint64_t lane0 = 0;
    uint64_t lane1 = 0;
    uint64_t lane2 = 0;
    for (int i = 0; i < FOLD_ITERATIONS; i++) {
        if (i + 1 < FOLD_ITERATIONS) {
            a0 = fold(a0, by128, _mm256_loadu_si256((const __m256i *)block));
            a1 = fold(a1, by128, _mm256_loadu_si256((const __m256i *)(block + 32)));
            a2 = fold(a2, by128, _mm256_loadu_si256((const __m256i *)(block + 64)));
            a3 = fold(a3, by128, _mm256_loadu_si256((const __m256i *)(block + 96)));
            block += 128;
        }
        for (int q = 0; q < LANE_QWORDS_PER_ITERATION; q++) {
            uint64_t w0, w1, w2;
            memcpy(&w0, lane, 8);
            memcpy(&w1, lane + CLMUL_LANE_BYTES, 8);
            memcpy(&w2, lane + 2 * CLMUL_LANE_BYTES, 8);
            lane0 = _mm_crc32_u64(lane0, w0);
            lane1 = _mm_crc32_u64(lane1, w1);
            lane2 = _mm_crc32_u64(lane2, w2);
            lane += 8;
        }
    }
    const __m256i by32 = broadcast(fold_by_32);
    a1 = fold(a0, by32, a1);
    a2 = fold(a1, by32, a2);
    a3 = fold(a2, by32, a3);
    __m128i first = _mm256_castsi256_si128(a3);
    __m128i second = _mm256_extracti128_si256(a3, 1);
    __m128i by16 = _mm_set_epi64x((long long)fold_by_16[1], (long long)fold_by_16[0]);
    __m128i last = _mm_xor_si128(
        _mm_xor_si128(_mm_clmulepi64_si128(first, by16, 0x00), _mm_clmulepi64_si128(first, by16, 0x11)), second);
    uint64_t folded = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(last));
    folded = _mm_crc32_u64(folded, (uint64_t)_mm_extract_epi64(last, 1));
    return apply_shift(lane_shift_tables[2], (uint32_t)folded) ^ apply_shift(lane_shift_tables[1], (uint32_t)lane0) ^
           apply_shift(lane_shift_tables[0], (uint32_t)lane1) ^ (uint32_t)lane2;
}

/* Compiled for these instructions only here, so the library still loads and runs on CPUs without them. */
CLMUL_TARGET uint32_t kvpool_crc32c_clmul(uint32_t crc, const void *buf, size_t len) {
    const unsigned char *p = buf;
    uint32_t reg = ~crc;
    if (len >= SUPERBLOCK_BYTES) {
        pthread_once(&clmul_once, build_clmul_tables);
        do {
            reg = clmul_superblock(reg, p);
            p += SUPERBLOCK_BYTES;
            len -= SUPERBLOCK_BYTES;
        } while (len >= SUPERBLOCK_BYTES);
    }
    /* the rest, under one superblock, through the crc32 instruction */
    return kvpool_crc32c_hw(~reg, p, len);
}

int32_t kvpool_crc32c_clmul_available(void) {
    return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("avx2") &&
                   __builtin_cpu_supports("vpclmulqdq")
               ? 1
               : 0;
}

uint32_t kvpool_crc32c(uint32_t crc, const void *buf, size_t len) {
    if (kvpool_crc32c_clmul_available()) {
        return kvpool_crc32c_clmul(crc, buf, len);
    }
    return kvpool_crc32c_hw_available() ? kvpool_crc32c_hw(crc, buf, len) : kvpool_crc32c_portable(crc, buf, len);
}
