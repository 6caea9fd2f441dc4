package io.kvpool.master;

import io.kvpool.protocol.BlockMetadata;

/** A readable object as residency events name it: key, generation, and the block metadata of its put (or null). */
public record ResidentObject(String key, long generation, BlockMetadata metadata) {
}
