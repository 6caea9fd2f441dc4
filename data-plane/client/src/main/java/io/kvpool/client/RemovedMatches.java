package io.kvpool.client;

/**
 * What {@link KvPoolClient#removeMatching} did: objects removed; matching objects kept because they
 * were being read, copied or written (of the last pass); and whether every key was looked at
 * (false: the operation timeout passed while the master was still matching).
 */
public record RemovedMatches(long removed, long kept, boolean finished) {}
