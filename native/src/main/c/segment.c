/* Segments: anonymous mappings with huge pages, NUMA preference and mlock (see kvpool_segment.h). */
#include "kvpool_segment.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Policy value of mbind(2); defined here to avoid depending on kernel headers or libnuma. */
#define KVPOOL_MPOL_PREFERRED 1
/* Node mask large enough for any kernel configuration (CONFIG_NODES_SHIFT <= 10). */
#define KVPOOL_MAX_NUMA_NODES 1024
#define KVPOOL_BITS_PER_LONG (8 * sizeof(unsigned long))

uint64_t kvpool_page_size(void) {
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (uint64_t)page : 4096u;
}

uint64_t kvpool_huge_page_size(void) {
    FILE *meminfo = fopen("/proc/meminfo", "re");
    if (meminfo == NULL) {
        return 0;
    }
    char line[256];
    uint64_t kib = 0;
    while (fgets(line, sizeof line, meminfo) != NULL) {
        unsigned long long value;
        if (sscanf(line, "Hugepagesize: %llu kB", &value) == 1) {
            kib = value;
            break;
        }
    }
    fclose(meminfo);
    return kib * 1024u;
}

/* Rounds size up to a multiple of align (a power of two); 0 on overflow. */
static uint64_t round_up(uint64_t size, uint64_t align) {
    if (size > UINT64_MAX - (align - 1)) {
        return 0;
    }
    return (size + align - 1) & ~(align - 1);
}

/* Transparent huge pages help only when the kernel's policy is not "never". */
static int transparent_huge_pages_enabled(void) {
    FILE *policy = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
    if (policy == NULL) {
        return 0;
    }
    char line[128] = {0};
    int enabled = fgets(line, sizeof line, policy) != NULL && strstr(line, "[never]") == NULL;
    fclose(policy);
    return enabled;
}

static int map_explicit_huge(uint64_t size, uint64_t huge_size, void **base, uint64_t *mapped) {
    uint64_t length = round_up(size, huge_size);
    if (length == 0) {
        return EINVAL;
    }
    void *addr = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (addr == MAP_FAILED) {
        return errno;
    }
    *base = addr;
    *mapped = length;
    return 0;
}

/*
 * Maps length bytes whose start is aligned to align (a multiple of the page size), by mapping
 * more and trimming both ends. Alignment lets transparent huge pages back the whole range.
 */
static int map_aligned(uint64_t length, uint64_t align, uint64_t page, void **base) {
    uint64_t slack = align > page ? align - page : 0;
    if (length > UINT64_MAX - slack) {
        return ENOMEM;
    }
    void *addr = mmap(NULL, length + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (addr == MAP_FAILED) {
        return errno;
    }
    uintptr_t start = (uintptr_t)addr;
    uintptr_t aligned = (start + (align - 1)) & ~(uintptr_t)(align - 1);
    uintptr_t head = aligned - start;
    uintptr_t tail = slack - head;
    if (head > 0) {
        munmap(addr, head);
    }
    if (tail > 0) {
        munmap((void *)(aligned + length), tail);
    }
    *base = (void *)aligned;
    return 0;
}

static int bind_preferred_node(void *base, uint64_t length, int32_t node) {
    if (node >= KVPOOL_MAX_NUMA_NODES) {
        return EINVAL;
    }
    unsigned long mask[KVPOOL_MAX_NUMA_NODES / KVPOOL_BITS_PER_LONG];
    memset(mask, 0, sizeof mask);
    mask[(size_t)node / KVPOOL_BITS_PER_LONG] |= 1UL << ((size_t)node % KVPOOL_BITS_PER_LONG);
    /* maxnode is one more than the mask's bit count: the kernel reads maxnode - 1 bits. */
    long rc = syscall(SYS_mbind, base, (unsigned long)length, KVPOOL_MPOL_PREFERRED, mask,
                      (unsigned long)KVPOOL_MAX_NUMA_NODES + 1, 0UL);
    return rc == 0 ? 0 : errno;
}

int kvpool_segment_create(uint64_t size, int32_t huge_mode, int32_t numa_node, int32_t lock,
                          kvpool_segment *out) {
    if (out == NULL || size == 0 || huge_mode < KVPOOL_HUGE_NONE || huge_mode > KVPOOL_HUGE_EXPLICIT ||
        numa_node < -1) {
        return EINVAL;
    }
    memset(out, 0, sizeof *out);
    uint64_t page = kvpool_page_size();
    uint64_t huge_size = kvpool_huge_page_size();
    void *base = NULL;
    uint64_t mapped = 0;
    int32_t obtained = KVPOOL_HUGE_NONE;

    if (huge_mode == KVPOOL_HUGE_EXPLICIT && huge_size > 0 &&
        map_explicit_huge(size, huge_size, &base, &mapped) == 0) {
        obtained = KVPOOL_HUGE_EXPLICIT;
    }
    if (base == NULL) {
        mapped = round_up(size, page);
        if (mapped == 0) {
            return ENOMEM;
        }
        int want_thp = huge_mode != KVPOOL_HUGE_NONE && huge_size > 0 && transparent_huge_pages_enabled();
        uint64_t align = want_thp && mapped >= huge_size ? huge_size : page;
        int rc = map_aligned(mapped, align, page, &base);
        if (rc != 0) {
            return rc;
        }
        if (want_thp && madvise(base, mapped, MADV_HUGEPAGE) == 0) {
            obtained = KVPOOL_HUGE_TRANSPARENT;
        }
    }

    /* Bind before anything touches the pages, so that they are allocated on the preferred node. */
    if (numa_node >= 0) {
        int rc = bind_preferred_node(base, mapped, numa_node);
        if (rc == 0) {
            out->flags |= KVPOOL_SEGMENT_NUMA_BOUND;
        } else {
            out->flags |= KVPOOL_SEGMENT_NUMA_FAILED;
            out->numa_errno = rc;
        }
    }
    if (lock) {
        if (mlock(base, mapped) == 0) {
            out->flags |= KVPOOL_SEGMENT_LOCKED;
        } else {
            out->flags |= KVPOOL_SEGMENT_LOCK_FAILED;
            out->lock_errno = errno;
        }
    }
    out->base = (uint64_t)(uintptr_t)base;
    out->size = mapped;
    out->huge_mode = obtained;
    return 0;
}

int kvpool_segment_destroy(uint64_t base, uint64_t size) {
    if (base == 0 || size == 0) {
        return EINVAL;
    }
    /* munmap also drops any mlock on the range. */
    return munmap((void *)(uintptr_t)base, size) == 0 ? 0 : errno;
}
