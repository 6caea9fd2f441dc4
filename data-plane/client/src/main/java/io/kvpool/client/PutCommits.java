package io.kvpool.client;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts a client's committed puts by who committed them, for {@link PutCommitStats} and the shared
 * metrics.
 */
final class PutCommits {
  private final ClientMetrics metrics;
  private final LongAdder byNodes = new LongAdder();
  private final LongAdder byPutEnd = new LongAdder();

  PutCommits(ClientMetrics metrics) {
    this.metrics = metrics;
  }

  void byNodes(int puts) {
    if (puts > 0) {
      byNodes.add(puts);
      metrics.commitsByNodes.inc(puts);
    }
  }

  void byPutEnd(int puts) {
    byPutEnd.add(puts);
    metrics.commitsByPutEnd.inc(puts);
  }

  PutCommitStats stats() {
    return new PutCommitStats(byNodes.sum(), byPutEnd.sum());
  }
}
