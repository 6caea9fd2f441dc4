#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "kvpool_device.h"
#include "test_runner.h"

#define ERR_LEN 512

/* Path of the test-only libascendcl.so stand-in, set by the Makefile. */
static const char *standin_path(void) {
    const char *path = getenv("KVPOOL_TEST_STANDIN");
    return path != NULL ? path : "libascendcl.so";
}

/* Allocates, round-trips bytes host -> device -> host, frees. */
static void round_trip(kvpool_device *dev) {
    char err[ERR_LEN] = "";
    unsigned char src[1000];
    unsigned char back[1000];
    for (int i = 0; i < 1000; i++) {
        src[i] = (unsigned char)(i * 13);
    }
    memset(back, 0, sizeof back);
    uint64_t device_ptr = 0;
    CHECK(kvpool_device_alloc(dev, 1000, &device_ptr, err, sizeof err) == KVPOOL_DEVICE_OK);
    CHECK(device_ptr != 0);
    if (device_ptr == 0) {
        fprintf(stderr, "  alloc: %s\n", err);
        return;
    }
    CHECK(kvpool_device_copy_to_device(dev, device_ptr, (uint64_t)(uintptr_t)src, 1000, err, sizeof err) == 0);
    CHECK(kvpool_device_copy_to_host(dev, (uint64_t)(uintptr_t)back, device_ptr, 1000, err, sizeof err) == 0);
    CHECK(memcmp(src, back, sizeof src) == 0);
    CHECK(kvpool_device_free(dev, device_ptr, err, sizeof err) == KVPOOL_DEVICE_OK);
}

static void host_backend_round_trips(void) {
    char err[ERR_LEN] = "";
    kvpool_device *dev = NULL;
    CHECK(kvpool_device_open("host", NULL, &dev, err, sizeof err) == KVPOOL_DEVICE_OK);
    if (dev != NULL) {
        round_trip(dev);
        uint64_t ptr = 0;
        CHECK(kvpool_device_alloc(dev, 0, &ptr, err, sizeof err) == KVPOOL_DEVICE_EINVAL);
        kvpool_device_close(dev);
    }
}

static void unknown_backend_is_refused_with_message(void) {
    const char *names[] = {"cuda", "ascend:", "ascend:x", "ascend1", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char err[ERR_LEN] = "";
        kvpool_device *dev = (kvpool_device *)&err;
        CHECK(kvpool_device_open(names[i], NULL, &dev, err, sizeof err) == KVPOOL_DEVICE_EINVAL);
        CHECK(dev == NULL);
        CHECK(strstr(err, "unknown device backend") != NULL);
    }
    CHECK(kvpool_device_open(NULL, NULL, NULL, NULL, 0) == KVPOOL_DEVICE_EINVAL);
}

static long standin_counter(const char *symbol) {
    void *lib = dlopen(standin_path(), RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL) {
        return -1;
    }
    long (*fn)(void) = NULL;
    *(void **)&fn = dlsym(lib, symbol);
    long value = fn != NULL ? fn() : -1;
    dlclose(lib);
    return value;
}

static void ascend_backend_runs_through_standin(void) {
    char err[ERR_LEN] = "";
    kvpool_device *dev = NULL;
    CHECK(kvpool_device_open("ascend:1", standin_path(), &dev, err, sizeof err) == KVPOOL_DEVICE_OK);
    if (dev == NULL) {
        fprintf(stderr, "  open: %s\n", err);
        return;
    }
    round_trip(dev);
    CHECK(standin_counter("kvpool_standin_live_allocations") == 0);
    CHECK(standin_counter("kvpool_standin_live_contexts") == 1);
    /* the runtime refuses a copy that ends outside device memory: reported, not crashed */
    uint64_t device_ptr = 0;
    unsigned char host[64] = {0};
    CHECK(kvpool_device_alloc(dev, 16, &device_ptr, err, sizeof err) == KVPOOL_DEVICE_OK);
    CHECK(kvpool_device_copy_to_device(dev, device_ptr, (uint64_t)(uintptr_t)host, 64, err, sizeof err) ==
          KVPOOL_DEVICE_ERUNTIME);
    CHECK(strstr(err, "aclrtMemcpy") != NULL);
    CHECK(kvpool_device_free(dev, device_ptr, err, sizeof err) == KVPOOL_DEVICE_OK);
    CHECK(kvpool_device_free(dev, device_ptr, err, sizeof err) == KVPOOL_DEVICE_ERUNTIME);
    kvpool_device_close(dev);
    CHECK(standin_counter("kvpool_standin_live_contexts") == 0);
    CHECK(standin_counter("kvpool_standin_initialized") == 0);
}

/* Two backends share one aclInit; the runtime is finalized only when the last one closes. */
static void ascend_backends_share_runtime_initialisation(void) {
    char err[ERR_LEN] = "";
    kvpool_device *first = NULL;
    kvpool_device *second = NULL;
    CHECK(kvpool_device_open("ascend", NULL, &first, err, sizeof err) == KVPOOL_DEVICE_OK);
    CHECK(kvpool_device_open("ascend:0", NULL, &second, err, sizeof err) == KVPOOL_DEVICE_OK);
    if (first == NULL || second == NULL) {
        fprintf(stderr, "  open: %s\n", err);
        kvpool_device_close(first);
        kvpool_device_close(second);
        return;
    }
    kvpool_device_close(first);
    CHECK(standin_counter("kvpool_standin_initialized") == 1);
    round_trip(second);
    kvpool_device_close(second);
    CHECK(standin_counter("kvpool_standin_initialized") == 0);
}

static void ascend_missing_library_reports_what_to_install(void) {
    char err[ERR_LEN] = "";
    kvpool_device *dev = NULL;
    CHECK(kvpool_device_open("ascend", "/nonexistent/libascendcl.so", &dev, err, sizeof err) == KVPOOL_DEVICE_ENOLIB);
    CHECK(dev == NULL);
    CHECK(strstr(err, "/nonexistent/libascendcl.so") != NULL);
    CHECK(strstr(err, "No such file") != NULL);
    CHECK(strstr(err, "CANN") != NULL);
    CHECK(strstr(err, "KVPOOL_ASCEND_LIB") != NULL);
}

static void ascend_library_without_acl_symbols_is_refused(void) {
    char err[ERR_LEN] = "";
    kvpool_device *dev = NULL;
    CHECK(kvpool_device_open("ascend", "libm.so.6", &dev, err, sizeof err) == KVPOOL_DEVICE_ENOLIB);
    CHECK(strstr(err, "does not export aclInit") != NULL);
}

static void ascend_missing_device_is_reported(void) {
    char err[ERR_LEN] = "";
    kvpool_device *dev = NULL;
    CHECK(kvpool_device_open("ascend:99", standin_path(), &dev, err, sizeof err) == KVPOOL_DEVICE_ERUNTIME);
    CHECK(dev == NULL);
    CHECK(strstr(err, "aclrtSetDevice(99)") != NULL);
    CHECK(standin_counter("kvpool_standin_initialized") == 0);
}

const struct kvpool_test_case kvpool_device_tests[] = {
    KVPOOL_TEST(host_backend_round_trips),
    KVPOOL_TEST(unknown_backend_is_refused_with_message),
    KVPOOL_TEST(ascend_backend_runs_through_standin),
    KVPOOL_TEST(ascend_backends_share_runtime_initialisation),
    KVPOOL_TEST(ascend_missing_library_reports_what_to_install),
    KVPOOL_TEST(ascend_library_without_acl_symbols_is_refused),
    KVPOOL_TEST(ascend_missing_device_is_reported),
    KVPOOL_TEST_END,
};
