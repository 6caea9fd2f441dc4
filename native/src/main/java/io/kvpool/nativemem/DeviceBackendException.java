package io.kvpool.nativemem;

/**
 * A device backend could not be opened or used: unknown name, device runtime library missing (the
 * message says which library, the loader's reason and what to install), or a runtime error.
 */
public class DeviceBackendException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DeviceBackendException(String message) {
    super(message);
  }
}
