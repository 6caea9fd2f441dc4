/*
 * Segments: anonymous mappings with huge pages, NUMA preference and mlock, and shared mappings of node-local
 * memory files (see kvpool_segment.h).
 */
#include "kvpool_segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Policy value of mbind(2); defined here to avoid depending on kernel headers or libnuma. */
#define KVPOOL_MPOL_PREFERRED 1
/* Node mask large enough for any kernel configuration (CONFIG_NODES_SHIFT <= 10). */
#define KVPOOL_MAX_NUMA_NODES 1024
#define KVPOOL_BITS_PER_LONG (8 * sizeof(unsigned long))
/* f_type of hugetlbfs in statfs(2); defined here to avoid depending on linux/magic.h. */
#define KVPOOL_HUGETLBFS_MAGIC 0x958458f6

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

/* Whether the kernel's transparent huge page policy in the file at path is neither "never" nor "deny". */
static int policy_allows_huge_pages(const char *path) {
    FILE *policy = fopen(path, "re");
    if (policy == NULL) {
        return 0;
    }
    char line[128] = {0};
    int enabled = fgets(line, sizeof line, policy) != NULL && strstr(line, "[never]") == NULL &&
                  strstr(line, "[deny]") == NULL;
    fclose(policy);
    return enabled;
}

/* Transparent huge pages help anonymous memory only when the kernel's policy is not "never". */
static int transparent_huge_pages_enabled(void) {
    return policy_allows_huge_pages("/sys/kernel/mm/transparent_hugepage/enabled");
}

/* Shared memory (tmpfs) has a policy of its own. */
static int shmem_huge_pages_enabled(void) {
    return policy_allows_huge_pages("/sys/kernel/mm/transparent_hugepage/shmem_enabled");
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

/* Binds and locks a fresh mapping as asked, reporting failures in out; fills out's address, size and mode. */
static void finish_mapping(void *base, uint64_t mapped, int32_t obtained, int32_t numa_node, int32_t lock,
                           kvpool_segment *out) {
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

    finish_mapping(base, mapped, obtained, numa_node, lock, out);
    return 0;
}

/* Gives the open file exactly length bytes; *fresh tells whether its earlier bytes were dropped. */
static int size_file(int fd, uint64_t length, int *fresh) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        return errno;
    }
    if (!S_ISREG(st.st_mode)) {
        return EINVAL;
    }
    if ((uint64_t)st.st_size == length) {
        *fresh = 0;
        return 0;
    }
    /* Emptied first: bytes of another layout must never show through at a new size. */
    if (ftruncate(fd, 0) != 0 || ftruncate(fd, (off_t)length) != 0) {
        return errno;
    }
    *fresh = 1;
    return 0;
}

/*
 * Reserves the file's blocks now, so that a full tmpfs or too few huge pages fail here with ENOSPC rather than as a
 * SIGBUS on the first touch of a page much later. Filesystems that cannot reserve are left as they are.
 */
static int reserve_file(int fd, uint64_t length) {
    if (fallocate(fd, 0, 0, (off_t)length) == 0) {
        return 0;
    }
    return errno == EOPNOTSUPP || errno == ENOSYS ? 0 : errno;
}

int kvpool_segment_map_file(const char *path, uint64_t size, int32_t huge_mode, int32_t numa_node,
                            int32_t lock, kvpool_segment *out) {
    if (out == NULL || path == NULL || path[0] == '\0' || size == 0 || huge_mode < KVPOOL_HUGE_NONE ||
        huge_mode > KVPOOL_HUGE_EXPLICIT || numa_node < -1 || size > (uint64_t)INT64_MAX) {
        return EINVAL;
    }
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        return errno;
    }
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0) {
        int rc = errno;
        close(fd);
        return rc;
    }
    int hugetlbfs = (unsigned long)fs.f_type == (unsigned long)KVPOOL_HUGETLBFS_MAGIC;
    /* hugetlbfs maps and sizes in its own page size, which statfs reports as the block size. */
    uint64_t page = hugetlbfs && fs.f_bsize > 0 ? (uint64_t)fs.f_bsize : kvpool_page_size();
    uint64_t length = round_up(size, page);
    int fresh = 0;
    int rc = length == 0 || length > (uint64_t)INT64_MAX ? EFBIG : size_file(fd, length, &fresh);
    if (rc == 0) {
        rc = reserve_file(fd, length);
    }
    if (rc != 0) {
        close(fd);
        return rc;
    }
    void *base = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    rc = base == MAP_FAILED ? errno : 0;
    close(fd); /* the mapping keeps the file open */
    if (rc != 0) {
        return rc;
    }
    int32_t obtained = KVPOOL_HUGE_NONE;
    if (hugetlbfs) {
        obtained = KVPOOL_HUGE_EXPLICIT;
    } else if (huge_mode != KVPOOL_HUGE_NONE && shmem_huge_pages_enabled() &&
               madvise(base, length, MADV_HUGEPAGE) == 0) {
        obtained = KVPOOL_HUGE_TRANSPARENT;
    }
    out->flags |= fresh ? KVPOOL_SEGMENT_FILE_FRESH : KVPOOL_SEGMENT_FILE_KEPT;
    finish_mapping(base, length, obtained, numa_node, lock, out);
    return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

int kvpool_segment_replace_pages(uint64_t base, uint64_t size, uint64_t offset, uint64_t length) {
    if (base == 0 || offset > size || length > size - offset) {
        return EINVAL;
    }
    uint64_t page = kvpool_page_size();
    uint64_t first = round_up(offset, page);
    uint64_t end = (offset + length) / page * page;
    if (end <= first) {
        return 0; /* no page lies wholly inside the range */
    }
    void *at = (void *)(uintptr_t)(base + first);
    /* Removes the pages from the file (a hole): whoever still references one, such as a socket buffer that
     * sendfile filled, keeps it; the mapping gets new zeroed pages. */
    if (madvise(at, end - first, MADV_REMOVE) != 0) {
        return errno;
    }
    /* Allocates the new pages now, as the file's reservation did at map time, so that a full tmpfs is an error
     * here rather than a SIGBUS at the next write; kernels before 5.14 lack it and fault them in on write. */
    if (madvise(at, end - first, MADV_POPULATE_WRITE) != 0 && errno != EINVAL) {
        return errno;
    }
    return 0;
}

int kvpool_segment_destroy(uint64_t base, uint64_t size) {
    if (base == 0 || size == 0) {
        return EINVAL;
    }
    /* munmap also drops any mlock on the range. */
    return munmap((void *)(uintptr_t)base, size) == 0 ? 0 : errno;
}
