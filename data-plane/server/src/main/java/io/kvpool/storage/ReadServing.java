package io.kvpool.storage;

/**
 * How a storage node sends the bytes of READ, READ_BATCH and READ_OBJECT replies from its segments
 * (data-plane/README.md, "Zero-copy gets").
 */
public enum ReadServing {
  /** Written from a view of the segment: the kernel copies the bytes into the socket. */
  COPY,

  /**
   * Sent by the kernel from the memory files' pages ({@code sendfile}), without that copy, for a
   * reply of at least {@link #MIN_FILE_REPLY_BYTES} on a plaintext connection to a node whose
   * segments are memory files; any other reply is copied.
   */
  SENDFILE;

  /**
   * Below this a reply is copied: one gathering write costs less than a write, a sendfile and a
   * write (64 KiB gets measured 0.58x as fast by sendfile, data-plane/README.md).
   */
  public static final int MIN_FILE_REPLY_BYTES = 256 << 10;

  /**
   * Copy: sendfile did not beat it on every workload of the 2-core build machine
   * (data-plane/README.md, "Zero-copy gets"), so it is asked for.
   */
  public static final ReadServing DEFAULT = COPY;
}
