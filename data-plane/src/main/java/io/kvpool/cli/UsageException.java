package io.kvpool.cli;

/** The command line is wrong: unknown command or option, missing or malformed value. Exit code 2. */
public final class UsageException extends RuntimeException {

  public UsageException(String message) {
    super(message);
  }
}
