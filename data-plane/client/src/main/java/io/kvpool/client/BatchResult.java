package io.kvpool.client;

import java.util.List;
import java.util.Map;

/**
 * Outcome of {@link KvPoolClient#putBatch}: keys stored now, keys that already existed (their value
 * was kept), and keys that failed with the reason.
 */
public record BatchResult(
    List<String> stored, List<String> alreadyPresent, Map<String, KvPoolException> failures) {
  public BatchResult {
    stored = List.copyOf(stored);
    alreadyPresent = List.copyOf(alreadyPresent);
    failures = Map.copyOf(failures);
  }

  public boolean allSucceeded() {
    return failures.isEmpty();
  }
}
