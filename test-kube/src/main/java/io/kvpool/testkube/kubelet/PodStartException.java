package io.kvpool.testkube.kubelet;

/**
 * A container cannot start; {@code reason} is the waiting reason a kubelet reports (e.g.
 * ErrImageNeverPull).
 */
final class PodStartException extends RuntimeException {
  private final String reason;

  PodStartException(String reason, String message) {
    super(message);
    this.reason = reason;
  }

  String reason() {
    return reason;
  }
}
