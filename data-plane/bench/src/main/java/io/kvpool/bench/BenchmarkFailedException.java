package io.kvpool.bench;

import io.kvpool.cli.CommandFailedException;

/**
 * A benchmark target returned an error or wrong data, so its figures would be meaningless. The
 * {@code kvpool} command reports it as an operation that failed (one line, exit code 1).
 */
public final class BenchmarkFailedException extends CommandFailedException {

  public BenchmarkFailedException(String message) {
    super(message);
  }

  public BenchmarkFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
