package io.kvpool.master;

import io.kvpool.protocol.ReplicaGrant;

/** Copy one replica of {@code key} from {@code source} (a live holder) to the already allocated {@code target}. */
public record RepairTask(String key, long generation, int size, int checksum, Replica source, String sourceEndpoint,
                         Replica target, long targetIncarnation, ReplicaGrant targetGrant) {
}
