package io.kvpool.master;

/** A segment of a storage node with its allocator. */
public record StorageSegment(int id, SegmentAllocator allocator) {}
