package io.kvpool.api.v1alpha1;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What a change of a spec field does to a running pool: the one place where each field's impact is
 * declared (as Flink's {@code @SpecDiff}). The operator renders its objects so that a change has
 * exactly this impact (a test changes every field and compares what it renders), and every change
 * that needs new pods goes through the rollout planner, one pod at a time. A field holding a nested
 * spec is not annotated; its own fields are.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface SpecDiff {
  Impact value();

  /** Impacts, from none to a version upgrade. */
  enum Impact {
    /**
     * Read by the operator only (rollout policy, status figures): no data-plane object or process
     * changes.
     */
    NONE,
    /**
     * Reaches running processes or objects without restarting a pod: the pool ConfigMap values the
     * master re-reads, the NetworkPolicy.
     */
    LIVE,
    /**
     * The number of storage pods: new ones take placements at once; surplus ones are drained, then
     * removed.
     */
    SCALE,
    /**
     * The storage pods are replaced one at a time (a warm restart where possible, else a drain
     * first).
     */
    RESTART_STORAGE,
    /**
     * The master pods are replaced one at a time: standbys first, the leader after it stepped down.
     */
    RESTART_MASTERS,
    /** Storage pods, then masters, as above. */
    RESTART_ALL,
    /**
     * A new release: the version policy and the image's declared protocol are checked first, then
     * every pod is replaced as for {@link #RESTART_ALL}.
     */
    UPGRADE
  }
}
