package io.kvpool.bench;

/** A benchmark target returned an error or wrong data, so its figures would be meaningless. */
public final class BenchmarkFailedException extends RuntimeException {

  public BenchmarkFailedException(String message) {
    super(message);
  }

  public BenchmarkFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
