package io.kvpool.operator.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  private static Condition only(List<Condition> conditions) {
    assertThat(conditions).hasSize(1);
    return conditions.get(0);
  }

  @Test
  void aNewConditionTransitionsNow() {
    Condition ready =
        only(new Conditions(null, 1, T0.plusMillis(700)).set("Ready", true, "Ok", "fine").build());

    assertThat(ready.getLastTransitionTime()).isEqualTo("2026-01-01T10:00:00Z");
    assertThat(ready.getObservedGeneration()).isEqualTo(1);
  }

  @Test
  void onlyAStatusChangeMovesTheTransitionTime() {
    List<Condition> first =
        new Conditions(null, 1, T0).set("Ready", false, "StorageNotReady", "1/3 ready").build();

    Condition newMessage =
        only(
            new Conditions(first, 2, T0.plusSeconds(30))
                .set("Ready", false, "StorageNotReady", "2/3 ready")
                .build());
    Condition newReason =
        only(
            new Conditions(first, 2, T0.plusSeconds(40))
                .set("Ready", false, "MasterUnreachable", "no answer")
                .build());
    Condition flipped =
        only(new Conditions(first, 2, T0.plusSeconds(50)).set("Ready", true, "Ok", "fine").build());

    assertThat(newMessage.getLastTransitionTime()).isEqualTo("2026-01-01T10:00:00Z");
    assertThat(newMessage.getMessage()).isEqualTo("2/3 ready");
    assertThat(newMessage.getObservedGeneration()).isEqualTo(2);
    assertThat(newReason.getLastTransitionTime()).isEqualTo("2026-01-01T10:00:00Z");
    assertThat(newReason.getReason()).isEqualTo("MasterUnreachable");
    assertThat(flipped.getLastTransitionTime()).isEqualTo("2026-01-01T10:00:50Z");
  }

  @Test
  void messagesAreBounded() {
    Condition degraded =
        only(new Conditions(null, 1, T0).set("Degraded", true, "X", "x".repeat(100_000)).build());

    assertThat(degraded.getMessage()).hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH);
  }
}
