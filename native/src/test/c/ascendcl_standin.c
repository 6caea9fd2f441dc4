/*
 * Test-only stand-in for Huawei's libascendcl.so: the AscendCL functions libkvpool uses, with the
 * real names and signatures, backed by host memory. It checks what the real runtime would refuse
 * (no aclInit, no current context, copies outside a device allocation, wrong direction) so the
 * "ascend" backend's code path is exercised in CI. Never shipped.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int aclError;
typedef void *aclrtContext;

#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define STANDIN_DEVICE_COUNT 8

enum { HOST_TO_HOST = 0, HOST_TO_DEVICE = 1, DEVICE_TO_HOST = 2, DEVICE_TO_DEVICE = 3 };

struct standin_context {
    int32_t device_id;
};

struct allocation {
    uintptr_t base;
    size_t size;
    struct allocation *next;
};

/* The stand-in's "device": initialisation state and live allocations, guarded by one lock. */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;
static struct allocation *allocations;
static long live_contexts;
/* AscendCL's current context is per thread. */
static _Thread_local struct standin_context *current_context;

__attribute__((visibility("default"))) aclError aclInit(const char *config_path) {
    (void)config_path;
    pthread_mutex_lock(&state_lock);
    aclError rc = initialized ? ACL_ERROR_REPEAT_INITIALIZE : ACL_SUCCESS;
    initialized = 1;
    pthread_mutex_unlock(&state_lock);
    return rc;
}

__attribute__((visibility("default"))) aclError aclFinalize(void) {
    pthread_mutex_lock(&state_lock);
    aclError rc = initialized ? ACL_SUCCESS : ACL_ERROR_UNINITIALIZE;
    initialized = 0;
    pthread_mutex_unlock(&state_lock);
    return rc;
}

static int is_initialized(void) {
    pthread_mutex_lock(&state_lock);
    int result = initialized;
    pthread_mutex_unlock(&state_lock);
    return result;
}

__attribute__((visibility("default"))) aclError aclrtSetDevice(int32_t device_id) {
    if (!is_initialized()) {
        return ACL_ERROR_UNINITIALIZE;
    }
    return device_id >= 0 && device_id < STANDIN_DEVICE_COUNT ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID;
}

__attribute__((visibility("default"))) aclError aclrtResetDevice(int32_t device_id) {
    return device_id >= 0 && device_id < STANDIN_DEVICE_COUNT ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID;
}

__attribute__((visibility("default"))) aclError aclrtCreateContext(aclrtContext *context, int32_t device_id) {
    if (context == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (device_id < 0 || device_id >= STANDIN_DEVICE_COUNT) {
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    struct standin_context *ctx = malloc(sizeof *ctx);
    if (ctx == NULL) {
        return ACL_ERROR_BAD_ALLOC;
    }
    ctx->device_id = device_id;
    pthread_mutex_lock(&state_lock);
    live_contexts++;
    pthread_mutex_unlock(&state_lock);
    current_context = ctx;
    *context = ctx;
    return ACL_SUCCESS;
}

__attribute__((visibility("default"))) aclError aclrtDestroyContext(aclrtContext context) {
    if (context == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (current_context == context) {
        current_context = NULL;
    }
    pthread_mutex_lock(&state_lock);
    live_contexts--;
    pthread_mutex_unlock(&state_lock);
    free(context);
    return ACL_SUCCESS;
}

__attribute__((visibility("default"))) aclError aclrtSetCurrentContext(aclrtContext context) {
    if (context == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    current_context = context;
    return ACL_SUCCESS;
}

__attribute__((visibility("default"))) aclError aclrtMalloc(void **dev_ptr, size_t size, int policy) {
    (void)policy;
    if (dev_ptr == NULL || size == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!is_initialized()) {
        return ACL_ERROR_UNINITIALIZE;
    }
    if (current_context == NULL) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    struct allocation *a = malloc(sizeof *a);
    void *memory = malloc(size);
    if (a == NULL || memory == NULL) {
        free(a);
        free(memory);
        return ACL_ERROR_BAD_ALLOC;
    }
    a->base = (uintptr_t)memory;
    a->size = size;
    pthread_mutex_lock(&state_lock);
    a->next = allocations;
    allocations = a;
    pthread_mutex_unlock(&state_lock);
    *dev_ptr = memory;
    return ACL_SUCCESS;
}

__attribute__((visibility("default"))) aclError aclrtFree(void *dev_ptr) {
    if (current_context == NULL) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    pthread_mutex_lock(&state_lock);
    struct allocation **link = &allocations;
    while (*link != NULL && (*link)->base != (uintptr_t)dev_ptr) {
        link = &(*link)->next;
    }
    struct allocation *found = *link;
    if (found != NULL) {
        *link = found->next;
    }
    pthread_mutex_unlock(&state_lock);
    if (found == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    free((void *)found->base);
    free(found);
    return ACL_SUCCESS;
}

/* True when [ptr, ptr + len) lies inside one device allocation. */
static int inside_device_memory(const void *ptr, size_t len) {
    uintptr_t start = (uintptr_t)ptr;
    int inside = 0;
    pthread_mutex_lock(&state_lock);
    for (struct allocation *a = allocations; a != NULL && !inside; a = a->next) {
        inside = start >= a->base && len <= a->size && start - a->base <= a->size - len;
    }
    pthread_mutex_unlock(&state_lock);
    return inside;
}

__attribute__((visibility("default"))) aclError aclrtMemcpy(void *dst, size_t dest_max, const void *src,
                                                             size_t count, int kind) {
    if (dst == NULL || src == NULL || count > dest_max) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (current_context == NULL) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    int ok;
    switch (kind) {
    case HOST_TO_DEVICE:
        ok = inside_device_memory(dst, count) && !inside_device_memory(src, count);
        break;
    case DEVICE_TO_HOST:
        ok = inside_device_memory(src, count) && !inside_device_memory(dst, count);
        break;
    default:
        ok = 0;
        break;
    }
    if (!ok) {
        return ACL_ERROR_INVALID_PARAM;
    }
    memcpy(dst, src, count);
    return ACL_SUCCESS;
}

/* Test hooks, not AscendCL: what the stand-in still holds. */
__attribute__((visibility("default"))) long kvpool_standin_live_allocations(void) {
    long count = 0;
    pthread_mutex_lock(&state_lock);
    for (struct allocation *a = allocations; a != NULL; a = a->next) {
        count++;
    }
    pthread_mutex_unlock(&state_lock);
    return count;
}

__attribute__((visibility("default"))) long kvpool_standin_live_contexts(void) {
    pthread_mutex_lock(&state_lock);
    long count = live_contexts;
    pthread_mutex_unlock(&state_lock);
    return count;
}

__attribute__((visibility("default"))) int kvpool_standin_initialized(void) {
    return is_initialized();
}
