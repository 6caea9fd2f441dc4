package io.kvpool.nativemem;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Device memory allocated by a {@link DeviceBackend}. Copies hold it open (read lock) and {@link
 * #close()} (write lock) waits for them, so a close never frees memory under a copy.
 */
public final class DeviceBuffer implements AutoCloseable {
  private final NativeDeviceBackend backend;
  private final long address;
  private final long size;
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  private boolean freed; // guarded by lifecycle

  DeviceBuffer(NativeDeviceBackend backend, long address, long size) {
    this.backend = backend;
    this.address = address;
    this.size = size;
  }

  /** Bytes allocated. */
  public long size() {
    return size;
  }

  /** Frees the device memory. Idempotent; also done by closing the backend. */
  @Override
  public void close() {
    backend.release(this);
  }

  NativeDeviceBackend backend() {
    return backend;
  }

  long address() {
    return address;
  }

  /**
   * Frees through action unless already freed; returns whether it ran. Caller holds the backend
   * open.
   */
  boolean freeOnce(Runnable action) {
    Lock write = lifecycle.writeLock();
    write.lock();
    try {
      if (freed) {
        return false;
      }
      freed = true;
      action.run();
      return true;
    } finally {
      write.unlock();
    }
  }

  void enter() {
    Lock read = lifecycle.readLock();
    read.lock();
    if (freed) {
      read.unlock();
      throw new IllegalStateException(
          "device buffer of "
              + size
              + " bytes on backend '"
              + backend.name()
              + "' is closed; allocate a new one");
    }
  }

  void exit() {
    lifecycle.readLock().unlock();
  }

  @Override
  public String toString() {
    return "DeviceBuffer{backend=" + backend.name() + ", size=" + size + '}';
  }
}
