/* Device backends: dispatch by name to the host or Ascend implementation (see kvpool_device.h). */
#include "kvpool_device.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_backend.h"

int kvpool_device_fail(char *err, size_t err_len, int code, const char *fmt, ...) {
    if (err != NULL && err_len > 0) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(err, err_len, fmt, args);
        va_end(args);
    }
    return code;
}

/* Parses "ascend" or "ascend:N"; returns 0 and the device id, or -1 when malformed. */
static int parse_ascend_name(const char *name, int32_t *device_id) {
    static const char prefix[] = "ascend";
    size_t prefix_len = sizeof prefix - 1;
    if (strncmp(name, prefix, prefix_len) != 0) {
        return -1;
    }
    const char *rest = name + prefix_len;
    if (*rest == '\0') {
        *device_id = 0;
        return 0;
    }
    if (*rest != ':' || rest[1] < '0' || rest[1] > '9') {
        return -1;
    }
    char *end = NULL;
    errno = 0;
    long id = strtol(rest + 1, &end, 10);
    if (errno != 0 || *end != '\0' || id > INT32_MAX) {
        return -1;
    }
    *device_id = (int32_t)id;
    return 0;
}

int kvpool_device_open(const char *name, const char *library, kvpool_device **out, char *err, size_t err_len) {
    if (name == NULL || out == NULL) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_EINVAL,
                                  "device backend name and output must not be NULL");
    }
    *out = NULL;
    struct kvpool_device *dev = calloc(1, sizeof *dev);
    if (dev == NULL) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ENOMEM,
                                  "out of memory opening device backend '%s'", name);
    }
    int32_t device_id = 0;
    int rc;
    if (strcmp(name, "host") == 0) {
        rc = kvpool_device_host_open(dev, err, err_len);
    } else if (parse_ascend_name(name, &device_id) == 0) {
        rc = kvpool_device_ascend_open(dev, device_id, library, err, err_len);
    } else {
        rc = kvpool_device_fail(err, err_len, KVPOOL_DEVICE_EINVAL,
                                "unknown device backend '%s': expected 'host', 'ascend' or 'ascend:<device id>'", name);
    }
    if (rc != KVPOOL_DEVICE_OK) {
        free(dev);
        return rc;
    }
    *out = dev;
    return KVPOOL_DEVICE_OK;
}

int kvpool_device_alloc(kvpool_device *dev, uint64_t size, uint64_t *out, char *err, size_t err_len) {
    if (dev == NULL || out == NULL || size == 0) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_EINVAL,
                                  "device allocation needs an open backend and a size > 0");
    }
    return dev->ops->alloc(dev->state, size, out, err, err_len);
}

int kvpool_device_free(kvpool_device *dev, uint64_t ptr, char *err, size_t err_len) {
    if (dev == NULL || ptr == 0) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_EINVAL,
                                  "device free needs an open backend and a non-null address");
    }
    return dev->ops->free(dev->state, ptr, err, err_len);
}

int kvpool_device_copy_to_device(kvpool_device *dev, uint64_t dst, uint64_t src, uint64_t len, char *err,
                                 size_t err_len) {
    if (dev == NULL || dst == 0 || src == 0) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_EINVAL,
                                  "copy to device needs an open backend and non-null addresses");
    }
    return len == 0 ? KVPOOL_DEVICE_OK : dev->ops->copy_to_device(dev->state, dst, src, len, err, err_len);
}

int kvpool_device_copy_to_host(kvpool_device *dev, uint64_t dst, uint64_t src, uint64_t len, char *err,
                               size_t err_len) {
    if (dev == NULL || dst == 0 || src == 0) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_EINVAL,
                                  "copy to host needs an open backend and non-null addresses");
    }
    return len == 0 ? KVPOOL_DEVICE_OK : dev->ops->copy_to_host(dev->state, dst, src, len, err, err_len);
}

void kvpool_device_close(kvpool_device *dev) {
    if (dev == NULL) {
        return;
    }
    dev->ops->close(dev->state);
    free(dev);
}
