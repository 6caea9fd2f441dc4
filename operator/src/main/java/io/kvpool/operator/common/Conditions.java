package io.kvpool.operator.common;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds a status' condition list. A condition keeps its {@code lastTransitionTime} unless its
 * status changed: that time says since when the condition has been True (or False), what {@code
 * kubectl wait} and humans rely on, even while its reason or message follow what is observed now.
 * Messages are bounded ({@link StatusMessage}).
 */
public final class Conditions {
  public static final String TRUE = "True";
  public static final String FALSE = "False";

  private final List<Condition> previous;
  private final long observedGeneration;
  private final Instant now;
  private final List<Condition> result = new ArrayList<>();

  public Conditions(List<Condition> previous, long observedGeneration, Instant now) {
    this.previous = previous == null ? List.of() : previous;
    this.observedGeneration = observedGeneration;
    this.now = now.truncatedTo(ChronoUnit.SECONDS);
  }

  public Conditions set(String type, boolean status, String reason, String message) {
    String statusText = status ? TRUE : FALSE;
    Optional<Condition> old = find(previous, type);
    boolean sameStatus =
        old.isPresent()
            && statusText.equals(old.get().getStatus())
            && old.get().getLastTransitionTime() != null;
    result.add(
        new ConditionBuilder()
            .withType(type)
            .withStatus(statusText)
            .withReason(reason)
            .withMessage(StatusMessage.bound(message))
            .withObservedGeneration(observedGeneration)
            .withLastTransitionTime(sameStatus ? old.get().getLastTransitionTime() : now.toString())
            .build());
    return this;
  }

  public List<Condition> build() {
    return List.copyOf(result);
  }

  public static Optional<Condition> find(List<Condition> conditions, String type) {
    if (conditions == null) {
      return Optional.empty();
    }
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  public static boolean isTrue(List<Condition> conditions, String type) {
    return find(conditions, type).map(c -> TRUE.equals(c.getStatus())).orElse(false);
  }
}
