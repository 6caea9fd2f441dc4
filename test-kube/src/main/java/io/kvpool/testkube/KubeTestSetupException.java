package io.kvpool.testkube;

/** The real API server for tests could not be prepared or started; the message says what to do. */
public class KubeTestSetupException extends RuntimeException {

  public KubeTestSetupException(String message) {
    super(message);
  }

  public KubeTestSetupException(String message, Throwable cause) {
    super(message, cause);
  }
}
