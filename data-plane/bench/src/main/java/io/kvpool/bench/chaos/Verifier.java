package io.kvpool.bench.chaos;

import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The final check of every key in the {@link Ledger}, once the load stopped and the pool settled:
 * each read in batches, the values compared byte for byte with what the key's put sent, and judged
 * by the ledger's rules. A batch that fails is asked again for a while (the pool may still be
 * finishing repairs); a key no call could read is reported unreadable, which is a violation too
 * (every server must answer).
 */
final class Verifier {
  private static final int BATCH = 256;

  /** Keys checked by state, and what was wrong. */
  record Result(
      int acknowledged,
      int uncertain,
      int removed,
      List<String> lost,
      List<String> wrong,
      List<String> resurrected,
      List<String> unreadable,
      int uncertainPresent,
      String lastError) {}

  private final Ledger ledger;
  private final KeyValues values;
  private final Duration retryFor;
  private String lastError = "none";

  Verifier(Ledger ledger, KeyValues values, Duration retryFor) {
    this.ledger = ledger;
    this.values = values;
    this.retryFor = retryFor;
  }

  Result verify(KvPoolClient client) {
    List<String> acknowledged = ledger.keys(Ledger.State.ACKNOWLEDGED);
    List<String> uncertain = new ArrayList<>(ledger.keys(Ledger.State.UNCERTAIN));
    uncertain.addAll(ledger.keys(Ledger.State.WRITING));
    List<String> removed = ledger.keys(Ledger.State.REMOVED);
    List<String> lost = new ArrayList<>();
    List<String> wrong = new ArrayList<>();
    List<String> resurrected = new ArrayList<>();
    List<String> unreadable = new ArrayList<>();
    int[] uncertainPresent = {0};
    for (List<String> keys : List.of(acknowledged, uncertain, removed)) {
      for (int from = 0; from < keys.size(); from += BATCH) {
        List<String> chunk = keys.subList(from, Math.min(keys.size(), from + BATCH));
        Map<String, ByteBuffer> read = read(client, chunk);
        if (read == null) {
          unreadable.addAll(chunk);
          continue;
        }
        for (String key : chunk) {
          Ledger.Entry e = ledger.entry(key);
          ByteBuffer value = read.get(key);
          boolean present = value != null;
          boolean exact = present && values.matches(key, e.size(), value);
          if (present
              && (e.state() == Ledger.State.UNCERTAIN || e.state() == Ledger.State.WRITING)) {
            uncertainPresent[0]++;
          }
          switch (Ledger.judge(e.state(), present, exact)) {
            case LOST -> lost.add(key);
            case WRONG -> wrong.add(key);
            case RESURRECTED -> resurrected.add(key);
            case OK -> {}
          }
        }
      }
    }
    return new Result(
        acknowledged.size(),
        uncertain.size(),
        removed.size(),
        lost,
        wrong,
        resurrected,
        unreadable,
        uncertainPresent[0],
        lastError);
  }

  /**
   * One batch read, asked again until it succeeds or {@code retryFor} passed; null if it never did.
   */
  private Map<String, ByteBuffer> read(KvPoolClient client, List<String> keys) {
    long deadline = System.nanoTime() + retryFor.toNanos();
    while (true) {
      try {
        return new HashMap<>(client.getBatch(keys));
      } catch (KvPoolException e) {
        lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (System.nanoTime() - deadline > 0) {
          return null;
        }
        Pause.millis(500); // a failed call: ask again while the pool may still be finishing repairs
      }
    }
  }
}
