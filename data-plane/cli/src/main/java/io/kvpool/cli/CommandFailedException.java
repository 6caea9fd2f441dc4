package io.kvpool.cli;

/**
 * The command line was fine but the operation could not be done (a file, the network, the pool).
 * Exit code 1. A plugin's commands report their failures as subclasses (the bench's {@code
 * BenchmarkFailedException}).
 */
public class CommandFailedException extends RuntimeException {

  public CommandFailedException(String message) {
    super(message);
  }

  public CommandFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
