/* The "host" device backend: device memory is ordinary host memory. */
#include <stdlib.h>
#include <string.h>

#include "device_backend.h"
#include "kvpool_device.h"

/* Cache-line alignment, like device allocators give. */
#define HOST_DEVICE_ALIGN 64

static int host_alloc(void *state, uint64_t size, uint64_t *out, char *err, size_t err_len) {
    (void)state;
    void *ptr = NULL;
    if (size > SIZE_MAX || posix_memalign(&ptr, HOST_DEVICE_ALIGN, (size_t)size) != 0) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ENOMEM, "host backend: cannot allocate %llu bytes",
                                  (unsigned long long)size);
    }
    *out = (uint64_t)(uintptr_t)ptr;
    return KVPOOL_DEVICE_OK;
}

static int host_free(void *state, uint64_t ptr, char *err, size_t err_len) {
    (void)state;
    (void)err;
    (void)err_len;
    free((void *)(uintptr_t)ptr);
    return KVPOOL_DEVICE_OK;
}

static int host_copy(void *state, uint64_t dst, uint64_t src, uint64_t len, char *err, size_t err_len) {
    (void)state;
    (void)err;
    (void)err_len;
    memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, (size_t)len);
    return KVPOOL_DEVICE_OK;
}

static void host_close(void *state) {
    (void)state;
}

static const struct kvpool_device_ops host_ops = {
    .alloc = host_alloc,
    .free = host_free,
    .copy_to_device = host_copy,
    .copy_to_host = host_copy,
    .close = host_close,
};

int kvpool_device_host_open(struct kvpool_device *dev, char *err, size_t err_len) {
    (void)err;
    (void)err_len;
    dev->ops = &host_ops;
    dev->state = NULL;
    return KVPOOL_DEVICE_OK;
}
