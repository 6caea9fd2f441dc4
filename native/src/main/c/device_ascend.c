/*
 * The "ascend" device backend: Huawei Ascend NPU memory through AscendCL (libascendcl.so),
 * loaded with dlopen at run time so that libkvpool has no link-time dependency on CANN.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "device_backend.h"
#include "kvpool_device.h"

#define ASCEND_DEFAULT_LIBRARY "libascendcl.so"
#define ASCEND_LIBRARY_ENV "KVPOOL_ASCEND_LIB"
#define ASCEND_INSTALL_HINT                                                                              \
    "Install the Ascend CANN toolkit and driver and add its lib64 directory "                           \
    "(e.g. /usr/local/Ascend/ascend-toolkit/latest/lib64) to LD_LIBRARY_PATH, "                         \
    "or set " ASCEND_LIBRARY_ENV " to the full path of libascendcl.so"

/* AscendCL types and constants, as declared in acl/acl_base.h and acl/acl_rt.h. */
typedef int aclError;
typedef void *aclrtContext;
#define ACL_SUCCESS 0
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_MEM_MALLOC_HUGE_FIRST 0
#define ACL_MEMCPY_HOST_TO_DEVICE 1
#define ACL_MEMCPY_DEVICE_TO_HOST 2

struct acl_api {
    aclError (*init)(const char *config_path);
    aclError (*finalize)(void);
    aclError (*set_device)(int32_t device_id);
    aclError (*reset_device)(int32_t device_id);
    aclError (*create_context)(aclrtContext *context, int32_t device_id);
    aclError (*destroy_context)(aclrtContext context);
    aclError (*set_current_context)(aclrtContext context);
    aclError (*malloc_device)(void **dev_ptr, size_t size, int policy);
    aclError (*free_device)(void *dev_ptr);
    aclError (*memcpy_sync)(void *dst, size_t dest_max, const void *src, size_t count, int kind);
};

struct ascend_state {
    void *library;
    struct acl_api api;
    int32_t device_id;
    aclrtContext context;
};

/*
 * aclInit may run once per process and aclFinalize must come after the last user: the number of
 * open ascend backends is process-wide state, guarded by acl_users_lock.
 */
static pthread_mutex_t acl_users_lock = PTHREAD_MUTEX_INITIALIZER;
static int acl_users;

static int acl_acquire(struct ascend_state *s, char *err, size_t err_len) {
    int rc = KVPOOL_DEVICE_OK;
    pthread_mutex_lock(&acl_users_lock);
    if (acl_users == 0) {
        aclError acl = s->api.init(NULL);
        if (acl != ACL_SUCCESS && acl != ACL_ERROR_REPEAT_INITIALIZE) {
            rc = kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ERUNTIME,
                                    "ascend backend: aclInit failed with aclError %d; check the driver "
                                    "installation (npu-smi info) and the CANN environment",
                                    acl);
        }
    }
    if (rc == KVPOOL_DEVICE_OK) {
        acl_users++;
    }
    pthread_mutex_unlock(&acl_users_lock);
    return rc;
}

static void acl_release(struct ascend_state *s) {
    pthread_mutex_lock(&acl_users_lock);
    if (--acl_users == 0) {
        s->api.finalize();
    }
    pthread_mutex_unlock(&acl_users_lock);
}

static int resolve(struct ascend_state *s, const char *symbol, void **slot, const char *path, char *err,
                   size_t err_len) {
    dlerror();
    *slot = dlsym(s->library, symbol);
    if (*slot == NULL) {
        const char *why = dlerror();
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ENOLIB,
                                  "ascend backend: %s does not export %s (%s); it is not a usable AscendCL "
                                  "runtime. " ASCEND_INSTALL_HINT,
                                  path, symbol, why != NULL ? why : "symbol is NULL");
    }
    return KVPOOL_DEVICE_OK;
}

/* dlsym returns void *; the function pointer is written through a void ** into the api slot. */
#define RESOLVE(field, symbol)                                                                           \
    do {                                                                                                 \
        int rc_ = resolve(s, symbol, (void **)&s->api.field, path, err, err_len);                        \
        if (rc_ != KVPOOL_DEVICE_OK) {                                                                   \
            return rc_;                                                                                  \
        }                                                                                                \
    } while (0)

static int resolve_api(struct ascend_state *s, const char *path, char *err, size_t err_len) {
    RESOLVE(init, "aclInit");
    RESOLVE(finalize, "aclFinalize");
    RESOLVE(set_device, "aclrtSetDevice");
    RESOLVE(reset_device, "aclrtResetDevice");
    RESOLVE(create_context, "aclrtCreateContext");
    RESOLVE(destroy_context, "aclrtDestroyContext");
    RESOLVE(set_current_context, "aclrtSetCurrentContext");
    RESOLVE(malloc_device, "aclrtMalloc");
    RESOLVE(free_device, "aclrtFree");
    RESOLVE(memcpy_sync, "aclrtMemcpy");
    return KVPOOL_DEVICE_OK;
}

/* AscendCL binds a context per thread; JNA calls arrive on any Java thread, so bind before each call. */
static int bind_context(struct ascend_state *s, const char *what, char *err, size_t err_len) {
    aclError acl = s->api.set_current_context(s->context);
    if (acl != ACL_SUCCESS) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ERUNTIME,
                                  "ascend backend: aclrtSetCurrentContext before %s failed with aclError %d "
                                  "on device %d",
                                  what, acl, s->device_id);
    }
    return KVPOOL_DEVICE_OK;
}

static int ascend_alloc(void *state, uint64_t size, uint64_t *out, char *err, size_t err_len) {
    struct ascend_state *s = state;
    int rc = bind_context(s, "aclrtMalloc", err, err_len);
    if (rc != KVPOOL_DEVICE_OK) {
        return rc;
    }
    void *ptr = NULL;
    aclError acl = s->api.malloc_device(&ptr, (size_t)size, ACL_MEM_MALLOC_HUGE_FIRST);
    if (acl != ACL_SUCCESS || ptr == NULL) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ENOMEM,
                                  "ascend backend: aclrtMalloc of %llu bytes on device %d failed with aclError %d",
                                  (unsigned long long)size, s->device_id, acl);
    }
    *out = (uint64_t)(uintptr_t)ptr;
    return KVPOOL_DEVICE_OK;
}

static int ascend_free(void *state, uint64_t ptr, char *err, size_t err_len) {
    struct ascend_state *s = state;
    int rc = bind_context(s, "aclrtFree", err, err_len);
    if (rc != KVPOOL_DEVICE_OK) {
        return rc;
    }
    aclError acl = s->api.free_device((void *)(uintptr_t)ptr);
    if (acl != ACL_SUCCESS) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ERUNTIME,
                                  "ascend backend: aclrtFree on device %d failed with aclError %d", s->device_id, acl);
    }
    return KVPOOL_DEVICE_OK;
}

static int ascend_copy(struct ascend_state *s, uint64_t dst, uint64_t src, uint64_t len, int kind, char *err,
                       size_t err_len) {
    int rc = bind_context(s, "aclrtMemcpy", err, err_len);
    if (rc != KVPOOL_DEVICE_OK) {
        return rc;
    }
    aclError acl =
        s->api.memcpy_sync((void *)(uintptr_t)dst, (size_t)len, (const void *)(uintptr_t)src, (size_t)len, kind);
    if (acl != ACL_SUCCESS) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ERUNTIME,
                                  "ascend backend: aclrtMemcpy %s of %llu bytes on device %d failed with aclError %d",
                                  kind == ACL_MEMCPY_HOST_TO_DEVICE ? "host->device" : "device->host",
                                  (unsigned long long)len, s->device_id, acl);
    }
    return KVPOOL_DEVICE_OK;
}

static int ascend_copy_to_device(void *state, uint64_t dst, uint64_t src, uint64_t len, char *err, size_t err_len) {
    return ascend_copy(state, dst, src, len, ACL_MEMCPY_HOST_TO_DEVICE, err, err_len);
}

static int ascend_copy_to_host(void *state, uint64_t dst, uint64_t src, uint64_t len, char *err, size_t err_len) {
    return ascend_copy(state, dst, src, len, ACL_MEMCPY_DEVICE_TO_HOST, err, err_len);
}

/*
 * Undoes a successful open in reverse order: context, device, AscendCL, library. Errors are not
 * reportable from close and leave nothing to retry, so their codes are not checked.
 */
static void ascend_close(void *state) {
    struct ascend_state *s = state;
    s->api.destroy_context(s->context);
    s->api.reset_device(s->device_id);
    acl_release(s);
    dlclose(s->library);
    free(s);
}

static const struct kvpool_device_ops ascend_ops = {
    .alloc = ascend_alloc,
    .free = ascend_free,
    .copy_to_device = ascend_copy_to_device,
    .copy_to_host = ascend_copy_to_host,
    .close = ascend_close,
};

/* Everything after dlopen: resolve, init, select the device, create the context. */
static int ascend_start(struct ascend_state *s, const char *path, char *err, size_t err_len) {
    int rc = resolve_api(s, path, err, err_len);
    if (rc != KVPOOL_DEVICE_OK) {
        return rc;
    }
    rc = acl_acquire(s, err, err_len);
    if (rc != KVPOOL_DEVICE_OK) {
        return rc;
    }
    aclError acl = s->api.set_device(s->device_id);
    if (acl != ACL_SUCCESS) {
        acl_release(s);
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ERUNTIME,
                                  "ascend backend: aclrtSetDevice(%d) failed with aclError %d; check that the "
                                  "device exists (npu-smi info) and is visible to this process "
                                  "(ASCEND_RT_VISIBLE_DEVICES, device-plugin allocation)",
                                  s->device_id, acl);
    }
    acl = s->api.create_context(&s->context, s->device_id);
    if (acl != ACL_SUCCESS) {
        s->api.reset_device(s->device_id);
        acl_release(s);
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ERUNTIME,
                                  "ascend backend: aclrtCreateContext on device %d failed with aclError %d",
                                  s->device_id, acl);
    }
    return KVPOOL_DEVICE_OK;
}

int kvpool_device_ascend_open(struct kvpool_device *dev, int32_t device_id, const char *library, char *err,
                              size_t err_len) {
    const char *source = "argument";
    const char *path = library;
    if (path == NULL) {
        path = getenv(ASCEND_LIBRARY_ENV);
        source = "environment variable " ASCEND_LIBRARY_ENV;
    }
    if (path == NULL || *path == '\0') {
        path = ASCEND_DEFAULT_LIBRARY;
        source = "dynamic loader search path";
    }
    struct ascend_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ENOMEM, "ascend backend: out of memory");
    }
    s->device_id = device_id;
    /* RTLD_NODELETE: the runtime starts threads of its own, so it must stay mapped after dlclose. */
    s->library = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (s->library == NULL) {
        const char *why = dlerror();
        free(s);
        return kvpool_device_fail(err, err_len, KVPOOL_DEVICE_ENOLIB,
                                  "ascend backend: cannot load the AscendCL runtime '%s' (from %s): %s. "
                                  ASCEND_INSTALL_HINT,
                                  path, source, why != NULL ? why : "unknown dlopen error");
    }
    int rc = ascend_start(s, path, err, err_len);
    if (rc != KVPOOL_DEVICE_OK) {
        dlclose(s->library);
        free(s);
        return rc;
    }
    dev->ops = &ascend_ops;
    dev->state = s;
    return KVPOOL_DEVICE_OK;
}
