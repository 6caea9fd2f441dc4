/*
 * Segments: page-aligned anonymous memory with optional huge pages, NUMA preference and mlock, or the shared
 * mapping of a node-local memory file (tmpfs or hugetlbfs) that outlives the process, for warm restarts.
 */
#ifndef KVPOOL_SEGMENT_H
#define KVPOOL_SEGMENT_H

#include <stdint.h>

#include "kvpool_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Huge page modes, requested and obtained. A request falls back EXPLICIT -> TRANSPARENT -> NONE. */
enum kvpool_huge_mode {
    KVPOOL_HUGE_NONE = 0,
    KVPOOL_HUGE_TRANSPARENT = 1,
    KVPOOL_HUGE_EXPLICIT = 2
};

/* Flags reported in kvpool_segment.flags. Failing to lock or bind is reported, never fatal. */
#define KVPOOL_SEGMENT_LOCKED 0x1u
#define KVPOOL_SEGMENT_LOCK_FAILED 0x2u
#define KVPOOL_SEGMENT_NUMA_BOUND 0x4u
#define KVPOOL_SEGMENT_NUMA_FAILED 0x8u
/* kvpool_segment_map_file only: the file was created or resized, so its bytes are zero... */
#define KVPOOL_SEGMENT_FILE_FRESH 0x10u
/* ...or it already had the size mapped, and its bytes are what an earlier process left there. */
#define KVPOOL_SEGMENT_FILE_KEPT 0x20u

/* What kvpool_segment_create obtained. Fixed-width fields: the layout is shared with the JNA binding. */
typedef struct kvpool_segment {
    uint64_t base;       /* address of the first byte */
    uint64_t size;       /* bytes mapped: the request rounded up to the page (or huge page) size */
    int32_t huge_mode;   /* enum kvpool_huge_mode actually obtained */
    uint32_t flags;      /* KVPOOL_SEGMENT_* */
    int32_t lock_errno;  /* errno of mlock when KVPOOL_SEGMENT_LOCK_FAILED, else 0 */
    int32_t numa_errno;  /* errno of mbind when KVPOOL_SEGMENT_NUMA_FAILED, else 0 */
} kvpool_segment;

/*
 * Maps size bytes (> 0) of zeroed anonymous memory.
 * huge_mode: enum kvpool_huge_mode requested; numa_node: preferred node or -1; lock: non-zero to mlock.
 * Returns 0 and fills *out, or an errno value (EINVAL for bad arguments, mmap's errno otherwise).
 */
KVPOOL_API int kvpool_segment_create(uint64_t size, int32_t huge_mode, int32_t numa_node, int32_t lock,
                          kvpool_segment *out);

/*
 * Maps size bytes (> 0) of the file at path shared (MAP_SHARED), so that the bytes stay in the file's filesystem
 * (tmpfs or hugetlbfs on the node) after this process exits and a later process can map them again.
 * The file is created with mode 0600 when missing. Its size must be the size mapped: size rounded up to the page
 * size, or to the huge page size on hugetlbfs (then huge_mode EXPLICIT is obtained). A file of exactly that size
 * keeps its bytes (KVPOOL_SEGMENT_FILE_KEPT); any other file is emptied and resized, its bytes then read as zero
 * (KVPOOL_SEGMENT_FILE_FRESH). The file's blocks are reserved (fallocate), so a full filesystem is ENOSPC here,
 * never a SIGBUS when a page is first touched. On tmpfs, huge_mode TRANSPARENT asks for huge pages where the kernel allows them for
 * shared memory. numa_node and lock as for kvpool_segment_create.
 * Returns 0 and fills *out, or an errno value (EINVAL for bad arguments, else that of open, ftruncate or mmap).
 * Unmap with kvpool_segment_destroy; the file stays until someone removes it.
 */
KVPOOL_API int kvpool_segment_map_file(const char *path, uint64_t size, int32_t huge_mode, int32_t numa_node,
                                       int32_t lock, kvpool_segment *out);

/*
 * Gives the pages that lie wholly inside [offset, offset + length) of a segment of kvpool_segment_map_file new,
 * zeroed pages of its file (MADV_REMOVE, then MADV_POPULATE_WRITE where the kernel has it): the old pages stay
 * with whoever still references them, such as a socket that sendfile gave them to, and never see the segment's
 * later writes. Pages only partly inside the range are left as they are. Returns 0 or errno (EINVAL for a range
 * outside the segment, or for anonymous memory).
 */
KVPOOL_API int kvpool_segment_replace_pages(uint64_t base, uint64_t size, uint64_t offset, uint64_t length);

/*
 * Unmaps a segment of kvpool_segment_create or kvpool_segment_map_file (base and size as reported).
 * Returns 0 or errno.
 */
KVPOOL_API int kvpool_segment_destroy(uint64_t base, uint64_t size);

/* The system page size and the default huge page size (0 when the kernel reports none). */
KVPOOL_API uint64_t kvpool_page_size(void);
KVPOOL_API uint64_t kvpool_huge_page_size(void);

#ifdef __cplusplus
}
#endif

#endif
