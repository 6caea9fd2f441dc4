package io.kvpool.rpc;

import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The configurable deadlines of a data-plane server, shared by the master and storage-node mains.
 */
public final class ServerLimitOptions {
  @Option(
      names = "--handshake-timeout",
      descriptionKey = "KVPOOL_HANDSHAKE_TIMEOUT",
      defaultValue = "10s",
      description =
          "A connection must complete its handshake within this (KVPOOL_HANDSHAKE_TIMEOUT)")
  Duration handshake;

  @Option(
      names = "--frame-timeout",
      descriptionKey = "KVPOOL_FRAME_TIMEOUT",
      defaultValue = "30s",
      description =
          "A request must arrive whole within this of its first byte; also the time a reply may take to"
              + " be read (KVPOOL_FRAME_TIMEOUT)")
  Duration frame;

  @Option(
      names = "--idle-timeout",
      descriptionKey = "KVPOOL_IDLE_TIMEOUT",
      defaultValue = "300s",
      description = "A connection with no request for this long is closed (KVPOOL_IDLE_TIMEOUT)")
  Duration idle;

  public ServerLimits limits() {
    return ServerLimits.DEFAULTS.withDeadlines(handshake, frame, idle);
  }
}
