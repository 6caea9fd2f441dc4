package io.kvpool.storage;

import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault for tests and the chaos soak, never for production: {@code KVPOOL_FAULT_HOLD_COMMITS}
 * names storage nodes (comma-separated ids) that promise the COMMITs of the replicas they complete
 * (replying {@code committed = 1}) and then never send them, as a node killed between its WRITE
 * reply and its COMMIT does. It lets a test hold a put in exactly that window for as long as it
 * needs, instead of racing a kill against a send that takes microseconds.
 */
final class CommitFault {
  static final String ENV = "KVPOOL_FAULT_HOLD_COMMITS";
  private static final Logger LOG = LoggerFactory.getLogger(CommitFault.class);

  private CommitFault() {}

  static boolean holds(String nodeId) {
    String value = System.getenv(ENV);
    boolean held =
        value != null && Arrays.stream(value.split(",")).map(String::trim).anyMatch(nodeId::equals);
    if (held) {
      LOG.warn(
          "event=fault_injected fault=hold_commits node={} reason=\"{} names this node: it promises COMMITs and"
              + " never sends them (a test fault)\"",
          nodeId,
          ENV);
    }
    return held;
  }
}
