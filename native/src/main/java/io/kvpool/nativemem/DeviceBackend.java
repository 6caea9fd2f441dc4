package io.kvpool.nativemem;

/**
 * Device memory (an accelerator's, or host memory standing in for it) and copies between it and
 * {@link NativeSegment}s. Backends: {@code "host"}, and {@code "ascend"} / {@code "ascend:<device
 * id>"} for Huawei Ascend NPUs through {@code libascendcl.so}, loaded at run time from {@code
 * $KVPOOL_ASCEND_LIB} when set, else from the dynamic loader's search path.
 *
 * <p>Thread safety: all methods may be called concurrently. {@link #close()} waits for operations
 * in progress, frees the buffers still allocated, and makes later calls fail with {@link
 * IllegalStateException}.
 */
public interface DeviceBackend extends AutoCloseable {

  /**
   * Opens a backend by name.
   *
   * @throws DeviceBackendException for an unknown name, or when the device runtime cannot be loaded
   *     or initialised (the message says which library, why, and what to install)
   */
  static DeviceBackend open(String name) {
    return NativeDeviceBackend.open(name, null);
  }

  /** The name this backend was opened with. */
  String name();

  /**
   * Allocates {@code size} bytes of device memory.
   *
   * @throws IllegalArgumentException when size &lt;= 0
   * @throws DeviceBackendException when the device cannot allocate it
   */
  DeviceBuffer allocate(long size);

  /**
   * Copies {@code length} bytes from segment {@code src} at {@code srcOffset} to device memory
   * {@code dst} at {@code dstOffset}. Synchronous: the bytes are on the device when it returns.
   */
  void copyToDevice(
      DeviceBuffer dst, long dstOffset, NativeSegment src, long srcOffset, long length);

  /**
   * Copies {@code length} bytes from device memory {@code src} at {@code srcOffset} to segment
   * {@code dst} at {@code dstOffset}. Synchronous.
   */
  void copyToHost(NativeSegment dst, long dstOffset, DeviceBuffer src, long srcOffset, long length);

  /** Frees the buffers still allocated and releases the device. Idempotent. */
  @Override
  void close();
}
