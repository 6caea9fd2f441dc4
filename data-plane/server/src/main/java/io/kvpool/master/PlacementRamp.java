package io.kvpool.master;

/**
 * Whether placement holds nodes to their share cap ({@link ReplicaPlacement}): {@code ON}, the
 * default, lets a node that joins or restarts empty take its fair share of puts when it registers,
 * growing to 1.5 times it over a minute; {@code OFF} leaves power of two choices alone, under which
 * the emptiest node wins every comparison it is sampled into (about twice its fair share). Off is
 * for measuring what the ramp does ({@code ./kvpool bench ramp --ramp both}) and for pools that
 * want an empty node filled as fast as placement allows.
 */
public enum PlacementRamp {
  ON,
  OFF
}
