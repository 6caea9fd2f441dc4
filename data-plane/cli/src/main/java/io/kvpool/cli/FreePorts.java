package io.kvpool.cli;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/**
 * Ports for the processes this JVM starts (a local pool's masters, a benchmark's peers), chosen by
 * the kernel as free and never handed out twice by this JVM: a port is free again once its probe
 * socket closed, so two probes in a row may get the same one (a master's admin port and its KV
 * event replay port once did, and the master could not bind the second).
 */
public final class FreePorts {
  private static final int ATTEMPTS = 64;
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private FreePorts() {}

  /** A port free now that this JVM has not handed out before. */
  public static synchronized int take() throws IOException {
    for (int i = 0; i < ATTEMPTS; i++) {
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      if (HANDED_OUT.add(port)) {
        return port;
      }
    }
    throw new IOException(
        "the kernel offered only ports already handed out in " + ATTEMPTS + " attempts");
  }
}
