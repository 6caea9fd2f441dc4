package io.kvpool.nativemem;

import com.sun.jna.Native;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DeviceBackend} over libkvpool's {@code kvpool_device_*} functions. Lock order, always:
 * backend, then device buffer, then segment.
 */
final class NativeDeviceBackend implements DeviceBackend {
  private static final Logger LOG = LoggerFactory.getLogger(NativeDeviceBackend.class);

  private final String name;
  private final long handle;
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  private final Set<DeviceBuffer> live =
      Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
  private boolean closed; // guarded by lifecycle

  private NativeDeviceBackend(String name, long handle) {
    this.name = name;
    this.handle = handle;
  }

  /**
   * Opens backend name; library overrides where libascendcl.so is loaded from (null: the
   * environment variable, then the loader's search path).
   */
  static NativeDeviceBackend open(String name, String library) {
    Objects.requireNonNull(name, "device backend name");
    long[] out = new long[1];
    byte[] err = errorBuffer();
    int rc = KvpoolNative.kvpool_device_open(name, library, out, err, err.length);
    if (rc != 0) {
      throw new DeviceBackendException(
          "cannot open device backend '" + name + "': " + Native.toString(err));
    }
    LOG.info("device backend opened backend={}", name);
    return new NativeDeviceBackend(name, out[0]);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public DeviceBuffer allocate(long size) {
    if (size <= 0) {
      throw new IllegalArgumentException("device buffer size must be > 0 bytes but was " + size);
    }
    enter();
    try {
      long[] out = new long[1];
      byte[] err = errorBuffer();
      check(KvpoolNative.kvpool_device_alloc(handle, size, out, err, err.length), err);
      DeviceBuffer buffer = new DeviceBuffer(this, out[0], size);
      live.add(buffer);
      return buffer;
    } finally {
      exit();
    }
  }

  @Override
  public void copyToDevice(
      DeviceBuffer dst, long dstOffset, NativeSegment src, long srcOffset, long length) {
    Objects.requireNonNull(src, "source segment");
    checkOwned(dst, "destination");
    Ranges.check(dstOffset, length, dst.size(), "destination device buffer");
    Ranges.check(srcOffset, length, src.size(), "source segment");
    transfer(
        dst,
        src,
        err ->
            KvpoolNative.kvpool_device_copy_to_device(
                handle,
                dst.address() + dstOffset,
                src.address() + srcOffset,
                length,
                err,
                err.length));
  }

  @Override
  public void copyToHost(
      NativeSegment dst, long dstOffset, DeviceBuffer src, long srcOffset, long length) {
    Objects.requireNonNull(dst, "destination segment");
    checkOwned(src, "source");
    Ranges.check(dstOffset, length, dst.size(), "destination segment");
    Ranges.check(srcOffset, length, src.size(), "source device buffer");
    transfer(
        src,
        dst,
        err ->
            KvpoolNative.kvpool_device_copy_to_host(
                handle,
                dst.address() + dstOffset,
                src.address() + srcOffset,
                length,
                err,
                err.length));
  }

  private interface NativeTransfer {
    int run(byte[] err);
  }

  private void transfer(DeviceBuffer buffer, NativeSegment segment, NativeTransfer transfer) {
    enter();
    try {
      buffer.enter();
      try {
        segment.enter();
        try {
          byte[] err = errorBuffer();
          check(transfer.run(err), err);
        } finally {
          segment.exit();
        }
      } finally {
        buffer.exit();
      }
    } finally {
      exit();
    }
  }

  /** Frees buffer once; a no-op when it, or this backend, was already closed. */
  void release(DeviceBuffer buffer) {
    Lock read = lifecycle.readLock();
    read.lock();
    try {
      if (!closed) {
        free(buffer);
      }
    } finally {
      read.unlock();
    }
  }

  private void free(DeviceBuffer buffer) {
    buffer.freeOnce(
        () -> {
          live.remove(buffer);
          byte[] err = errorBuffer();
          check(KvpoolNative.kvpool_device_free(handle, buffer.address(), err, err.length), err);
        });
  }

  @Override
  public void close() {
    Lock write = lifecycle.writeLock();
    write.lock();
    try {
      if (closed) {
        return;
      }
      List<DeviceBuffer> leftovers;
      synchronized (live) {
        leftovers = new ArrayList<>(live);
      }
      if (!leftovers.isEmpty()) {
        LOG.warn(
            "device backend closing with buffers still allocated backend={} buffers={}",
            name,
            leftovers.size());
      }
      DeviceBackendException failure = null;
      for (DeviceBuffer buffer : leftovers) {
        try {
          free(buffer);
        } catch (DeviceBackendException e) {
          failure = failure == null ? e : failure;
        }
      }
      closed = true;
      KvpoolNative.kvpool_device_close(handle);
      if (failure != null) {
        throw failure;
      }
    } finally {
      write.unlock();
    }
  }

  private void checkOwned(DeviceBuffer buffer, String role) {
    Objects.requireNonNull(buffer, role + " device buffer");
    if (buffer.backend() != this) {
      throw new IllegalArgumentException(
          role
              + " device buffer belongs to backend '"
              + buffer.backend().name()
              + "', not to this backend '"
              + name
              + "'");
    }
  }

  private void check(int rc, byte[] err) {
    if (rc != 0) {
      throw new DeviceBackendException("device backend '" + name + "': " + Native.toString(err));
    }
  }

  private void enter() {
    Lock read = lifecycle.readLock();
    read.lock();
    if (closed) {
      read.unlock();
      throw new IllegalStateException("device backend '" + name + "' is closed; open a new one");
    }
  }

  private void exit() {
    lifecycle.readLock().unlock();
  }

  private static byte[] errorBuffer() {
    return new byte[KvpoolNative.ERROR_BUFFER_BYTES];
  }

  @Override
  public String toString() {
    return "DeviceBackend{name=" + name + '}';
  }
}
