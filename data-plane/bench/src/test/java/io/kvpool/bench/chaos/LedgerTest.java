package io.kvpool.bench.chaos;

import static io.kvpool.bench.chaos.Ledger.State.ACKNOWLEDGED;
import static io.kvpool.bench.chaos.Ledger.State.REMOVED;
import static io.kvpool.bench.chaos.Ledger.State.UNCERTAIN;
import static io.kvpool.bench.chaos.Ledger.State.WRITING;
import static io.kvpool.bench.chaos.Ledger.Verdict.LOST;
import static io.kvpool.bench.chaos.Ledger.Verdict.OK;
import static io.kvpool.bench.chaos.Ledger.Verdict.RESURRECTED;
import static io.kvpool.bench.chaos.Ledger.Verdict.WRONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class LedgerTest {

  @Test
  void anAcknowledgedObjectMustBeThereWithItsBytes() {
    assertThat(Ledger.judge(ACKNOWLEDGED, true, true)).isEqualTo(OK);
    assertThat(Ledger.judge(ACKNOWLEDGED, false, false)).isEqualTo(LOST);
    assertThat(Ledger.judge(ACKNOWLEDGED, true, false)).isEqualTo(WRONG);
  }

  @Test
  void aFailedPutOrRemoveIsAbsentOrWholeNeverHalf() {
    for (Ledger.State s : new Ledger.State[] {UNCERTAIN, WRITING}) {
      assertThat(Ledger.judge(s, false, false)).isEqualTo(OK);
      assertThat(Ledger.judge(s, true, true)).isEqualTo(OK);
      assertThat(Ledger.judge(s, true, false)).isEqualTo(WRONG);
    }
  }

  @Test
  void aRemovedObjectMustStayGone() {
    assertThat(Ledger.judge(REMOVED, false, false)).isEqualTo(OK);
    assertThat(Ledger.judge(REMOVED, true, true)).isEqualTo(RESURRECTED);
  }

  @Test
  void keysMoveThroughTheirStatesAndAreNeverReused() {
    Ledger ledger = new Ledger(() -> "test");
    ledger.writing("a", 10, 1);
    ledger.writing("b", 20, 2);
    ledger.writing("c", 30, 3);
    assertThat(ledger.keys(WRITING)).containsExactlyInAnyOrder("a", "b", "c");
    ledger.acknowledged("a");
    ledger.putFailed("b");
    ledger.acknowledged("c");
    ledger.removed("c");
    assertThat(ledger.keys(ACKNOWLEDGED)).containsExactly("a");
    assertThat(ledger.keys(UNCERTAIN)).containsExactly("b");
    assertThat(ledger.keys(REMOVED)).containsExactly("c");
    assertThat(ledger.entry("a"))
        .extracting(
            Ledger.Entry::state, Ledger.Entry::size, Ledger.Entry::crc, Ledger.Entry::during)
        .containsExactly(ACKNOWLEDGED, 10, 1, "test");
    ledger.removeUncertain("a");
    assertThat(ledger.entry("a").state()).isEqualTo(UNCERTAIN);
    assertThatThrownBy(() -> ledger.writing("a", 1, 1)).hasMessageContaining("written twice");
    assertThat(ledger.firstMissing("a")).as("reported once").isTrue();
    assertThat(ledger.firstMissing("a")).isFalse();
    assertThatThrownBy(() -> ledger.acknowledged("zzz")).hasMessageContaining("not in the ledger");
  }

  @Test
  void valuesAreAFunctionOfSeedKeyAndSize() {
    KeyValues values = new KeyValues(42);
    ByteBuffer v = values.value("chaos/w0/1", 1001);
    assertThat(v.remaining()).isEqualTo(1001);
    assertThat(values.value("chaos/w0/1", 1001)).isEqualTo(v);
    assertThat(values.matches("chaos/w0/1", 1001, v)).isTrue();
    assertThat(values.matches("chaos/w0/2", 1001, v)).isFalse();
    assertThat(new KeyValues(43).matches("chaos/w0/1", 1001, v)).isFalse();
    ByteBuffer flipped = values.value("chaos/w0/1", 1001);
    flipped.put(500, (byte) (flipped.get(500) ^ 1));
    assertThat(values.matches("chaos/w0/1", 1001, flipped)).isFalse();
    assertThat(values.matches("chaos/w0/1", 1001, v.duplicate().limit(1000)))
        .as("cut short")
        .isFalse();
    assertThat(values.matches("chaos/w0/1", 1000, v.duplicate().limit(1000)))
        .as("no prefix of another size")
        .isFalse();
  }
}
