package io.kvpool.operator.status;

import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.operator.common.PoolEvent;
import java.util.List;

/** The status a pool should have now, and the Events its transitions call for. */
public record PoolStatusUpdate(KvCachePoolStatus status, List<PoolEvent> events) {}
