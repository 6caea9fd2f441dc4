/*
 * Device-memory backends: "host" (plain host memory) and "ascend" (Huawei Ascend NPU through
 * libascendcl.so, loaded at run time). Every call that can fail returns 0 on success or a
 * non-zero error code, and writes a readable message into err (err_len bytes, may be NULL/0).
 */
#ifndef KVPOOL_DEVICE_H
#define KVPOOL_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "kvpool_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes. */
#define KVPOOL_DEVICE_OK 0
#define KVPOOL_DEVICE_EINVAL 1     /* bad argument, e.g. unknown backend name */
#define KVPOOL_DEVICE_ENOLIB 2     /* the runtime library could not be loaded or lacks a symbol */
#define KVPOOL_DEVICE_ERUNTIME 3   /* the device runtime returned an error */
#define KVPOOL_DEVICE_ENOMEM 4     /* out of host or device memory */

typedef struct kvpool_device kvpool_device;

/*
 * Opens a backend. name: "host", "ascend" (device 0) or "ascend:N" (device N).
 * library: path of libascendcl.so for "ascend"; NULL means env KVPOOL_ASCEND_LIB if set, else
 * the dynamic loader's normal search path. Ignored by "host".
 */
KVPOOL_API int kvpool_device_open(const char *name, const char *library, kvpool_device **out,
                       char *err, size_t err_len);

/* Allocates size (> 0) bytes of device memory; *out receives the device address. */
KVPOOL_API int kvpool_device_alloc(kvpool_device *dev, uint64_t size, uint64_t *out, char *err, size_t err_len);

/* Frees device memory from kvpool_device_alloc. */
KVPOOL_API int kvpool_device_free(kvpool_device *dev, uint64_t ptr, char *err, size_t err_len);

/* Copies len bytes from host address src to device address dst, and the other way. */
KVPOOL_API int kvpool_device_copy_to_device(kvpool_device *dev, uint64_t dst, uint64_t src, uint64_t len,
                                 char *err, size_t err_len);
KVPOOL_API int kvpool_device_copy_to_host(kvpool_device *dev, uint64_t dst, uint64_t src, uint64_t len,
                               char *err, size_t err_len);

/* Closes the backend and frees the handle. Device memory must have been freed before. */
KVPOOL_API void kvpool_device_close(kvpool_device *dev);

#ifdef __cplusplus
}
#endif

#endif
