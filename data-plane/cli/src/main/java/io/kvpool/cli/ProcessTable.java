package io.kvpool.cli;

import java.io.PrintStream;
import java.util.Locale;

/** Prints which OS process plays which role in a local pool, and where its log is. */
final class ProcessTable {

  private ProcessTable() {}

  static void print(LocalPool pool, PrintStream out) {
    String format = "%-8s %-8s %-8s %-21s %-21s %s%n";
    out.printf(Locale.ROOT, format, "ROLE", "ID", "PID", "RPC", "ADMIN", "LOG");
    out.printf(
        Locale.ROOT,
        format,
        "master",
        "-",
        pool.master().pid(),
        pool.masterAddress(),
        pool.adminAddress(),
        pool.master().logFile());
    for (StorageNodeProcess node : pool.storageNodes()) {
      out.printf(
          Locale.ROOT,
          format,
          "storage",
          node.id(),
          node.process().pid(),
          node.rpcAddress(),
          node.adminAddress(),
          node.process().logFile());
    }
  }
}
