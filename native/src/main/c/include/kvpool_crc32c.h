/*
 * CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the same value as java.util.zip.CRC32C.
 * Every function continues a running checksum: pass 0 to start, or a previous result to continue.
 */
#ifndef KVPOOL_CRC32C_H
#define KVPOOL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#include "kvpool_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Uses the SSE4.2 crc32 instruction when the CPU has it, the portable tables otherwise. */
KVPOOL_API uint32_t kvpool_crc32c(uint32_t crc, const void *buf, size_t len);

/* Always the portable table implementation. */
KVPOOL_API uint32_t kvpool_crc32c_portable(uint32_t crc, const void *buf, size_t len);

/* Always the SSE4.2 implementation; call only when kvpool_crc32c_hw_available() is non-zero. */
KVPOOL_API uint32_t kvpool_crc32c_hw(uint32_t crc, const void *buf, size_t len);

/* Non-zero when this CPU has the SSE4.2 crc32 instruction. */
KVPOOL_API int32_t kvpool_crc32c_hw_available(void);

#ifdef __cplusplus
}
#endif

#endif
