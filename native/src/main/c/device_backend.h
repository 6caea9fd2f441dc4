/* Internal: the table of operations every device backend provides (see kvpool_device.h). */
#ifndef KVPOOL_DEVICE_BACKEND_H
#define KVPOOL_DEVICE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

struct kvpool_device_ops {
    int (*alloc)(void *state, uint64_t size, uint64_t *out, char *err, size_t err_len);
    int (*free)(void *state, uint64_t ptr, char *err, size_t err_len);
    int (*copy_to_device)(void *state, uint64_t dst, uint64_t src, uint64_t len, char *err, size_t err_len);
    int (*copy_to_host)(void *state, uint64_t dst, uint64_t src, uint64_t len, char *err, size_t err_len);
    void (*close)(void *state);
};

struct kvpool_device {
    const struct kvpool_device_ops *ops;
    void *state;
};

/* Formats a message into err when err is not NULL; returns code for tail calls. */
int kvpool_device_fail(char *err, size_t err_len, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Backend constructors: fill dev->ops and dev->state, or fail with a message. */
int kvpool_device_host_open(struct kvpool_device *dev, char *err, size_t err_len);
int kvpool_device_ascend_open(struct kvpool_device *dev, int32_t device_id, const char *library,
                              char *err, size_t err_len);

#endif
