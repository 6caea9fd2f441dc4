package io.kvpool.operator.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import org.junit.jupiter.api.Test;

/**
 * KvCachePoolReconcilerTest shows the pool healing once an object in its way is removed; this pins
 * the policy.
 */
class ReconcileRetryTest {

  @Test
  void failedReconcilesAreRetriedForeverWithABackoffCappedAtFifteenSeconds() {
    GradualRetry retry = KvCachePoolReconciler.class.getAnnotation(GradualRetry.class);

    assertThat(retry).isNotNull();
    assertThat(retry.maxAttempts()).as("-1: no last attempt").isEqualTo(-1);
    assertThat(retry.maxInterval()).isEqualTo(15_000);
  }
}
