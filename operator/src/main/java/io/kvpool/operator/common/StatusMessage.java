package io.kvpool.operator.common;

/**
 * Text that goes into a status condition, {@code status.message} or an Event: one line, whitespace
 * collapsed, at most {@link #MAX_LENGTH} characters. A message is a readable sentence for {@code
 * kubectl describe}; stack traces and server responses of any size stay in the operator's log.
 */
public final class StatusMessage {
  /**
   * Longest message written to the API server; longer text is cut at a word boundary and marked.
   */
  public static final int MAX_LENGTH = 512;

  private static final String CUT = " [...]";

  private StatusMessage() {}

  /** {@code text} on one line and within {@link #MAX_LENGTH}; null becomes the empty string. */
  public static String bound(String text) {
    return bound(text, MAX_LENGTH);
  }

  /** {@code text} on one line and within {@code max} characters. */
  public static String bound(String text, int max) {
    if (text == null) {
      return "";
    }
    String oneLine = text.replaceAll("\\s+", " ").strip();
    if (oneLine.length() <= max) {
      return oneLine;
    }
    int end = max - CUT.length();
    int space = oneLine.lastIndexOf(' ', end);
    if (space > end / 2) {
      end = space;
    }
    return oneLine.substring(0, end).stripTrailing() + CUT;
  }
}
