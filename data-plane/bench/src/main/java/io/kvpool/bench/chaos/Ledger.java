package io.kvpool.bench.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What the soak may expect of every key it wrote in the main keyspace. The rules:
 *
 * <ul>
 *   <li>a key is ACKNOWLEDGED only once {@code put} returned or {@code putBatch} listed it stored
 *       (or already present, which for the soak's unique keys means an earlier attempt landed): it
 *       must read back byte-exact until it is removed — whatever was killed, frozen or cut
 *       meanwhile;
 *   <li>a put that failed leaves the key UNCERTAIN: absent, or present with exactly its bytes
 *       (never half a value), as is a key whose remove failed without saying whether it happened;
 *   <li>a remove that returned true makes the key REMOVED: it must never be readable again;
 *   <li>a remove that answered "not stored" for an acknowledged key leaves it ACKNOWLEDGED (if it
 *       is really gone, the final check reports it lost).
 * </ul>
 *
 * The main keyspace is never evicted (it stays below the watermark and is pinned before each
 * eviction burst), so no acknowledged key is excused as evicted; the eviction keyspace has its own
 * rule ({@link EvictionBurst}). Thread-safe; each key is written by one worker only.
 */
public final class Ledger {

  /** Where a key stands. */
  public enum State {
    WRITING,
    ACKNOWLEDGED,
    UNCERTAIN,
    REMOVED
  }

  /**
   * A key's state with the size and CRC32C of its value, and when (and during which fault step) it
   * last changed, so that a finding names the moment that made it.
   */
  public record Entry(State state, int size, int crc, long atNanos, String during) {
    Entry with(State s, long now, String step) {
      return new Entry(s, size, crc, now, step);
    }
  }

  /** What a read of a key showed against what the ledger expects. */
  public enum Verdict {
    OK,
    LOST,
    WRONG,
    RESURRECTED
  }

  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final Set<String> reportedMissing = ConcurrentHashMap.newKeySet();
  private final Supplier<String> step;

  /**
   * {@code step} names what is under way (e.g. the journal's fault step), recorded with each
   * change.
   */
  public Ledger(Supplier<String> step) {
    this.step = step;
  }

  /** A put of {@code key} is about to be sent. Keys are never reused. */
  public void writing(String key, int size, int crc) {
    if (entries.putIfAbsent(key, new Entry(State.WRITING, size, crc, System.nanoTime(), step.get()))
        != null) {
      throw new IllegalStateException("key " + key + " written twice");
    }
  }

  public void acknowledged(String key) {
    move(key, State.ACKNOWLEDGED);
  }

  public void putFailed(String key) {
    move(key, State.UNCERTAIN);
  }

  public void removed(String key) {
    move(key, State.REMOVED);
  }

  /** A remove failed in a way that does not say whether it happened. */
  public void removeUncertain(String key) {
    move(key, State.UNCERTAIN);
  }

  private void move(String key, State to) {
    if (entries.computeIfPresent(key, (k, e) -> e.with(to, System.nanoTime(), step.get()))
        == null) {
      throw new IllegalStateException("key " + key + " is not in the ledger");
    }
  }

  /**
   * True the first time an acknowledged key is found missing during the run: each is reported once.
   */
  public boolean firstMissing(String key) {
    return reportedMissing.add(key);
  }

  public Entry entry(String key) {
    return entries.get(key);
  }

  /** Keys in {@code state}, in no particular order. */
  public List<String> keys(State state) {
    List<String> out = new ArrayList<>();
    entries.forEach(
        (k, e) -> {
          if (e.state() == state) {
            out.add(k);
          }
        });
    return out;
  }

  public int size() {
    return entries.size();
  }

  /**
   * The rule for one key: {@code present} whether a read found it, {@code exact} whether it had the
   * key's bytes. A key still WRITING (the load stopped inside its put) counts as UNCERTAIN.
   */
  public static Verdict judge(State state, boolean present, boolean exact) {
    return switch (state) {
      case ACKNOWLEDGED -> !present ? Verdict.LOST : exact ? Verdict.OK : Verdict.WRONG;
      case UNCERTAIN, WRITING -> !present || exact ? Verdict.OK : Verdict.WRONG;
      case REMOVED -> present ? Verdict.RESURRECTED : Verdict.OK;
    };
  }
}
