package io.kvpool.bench.compare;

import java.util.List;

/**
 * Something the comparison measures: kvpool through one of its clients, a peer store, or a limit of
 * the machine.
 */
interface Target extends AutoCloseable {

  /** What a target is, for the report: kvpool itself, a peer store, or a limit of the machine. */
  enum Family {
    KVPOOL,
    PEER,
    LIMIT
  }

  String name();

  Family family();

  /** One line for the report: what runs and how it is driven. */
  String description();

  boolean supports(Workload w);

  /**
   * Runs the workload once (its put phase, then its get phase, or its one phase) and returns what
   * it measured.
   */
  List<Measurement> run(Workload w, int round, Phase phase) throws Exception;

  @Override
  void close();
}
