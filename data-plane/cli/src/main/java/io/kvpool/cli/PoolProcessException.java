package io.kvpool.cli;

/**
 * A data-plane process of a local pool could not be started, did not become ready, or died. The
 * message may carry process log lines after its first line (for test reports); {@link #summary()}
 * is the first line alone.
 */
public final class PoolProcessException extends RuntimeException {
  private final String summary;

  public PoolProcessException(String message) {
    super(message);
    this.summary = message;
  }

  public PoolProcessException(String message, Throwable cause) {
    super(message, cause);
    this.summary = message;
  }

  /** {@code summary} on one line, {@code details} (e.g. log tails) below it in the message. */
  public PoolProcessException(String summary, String details) {
    super(summary + System.lineSeparator() + details);
    this.summary = summary;
  }

  /** What failed, in one line, without the log lines. */
  public String summary() {
    return summary;
  }
}
