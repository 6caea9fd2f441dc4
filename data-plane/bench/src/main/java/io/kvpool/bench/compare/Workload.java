package io.kvpool.bench.compare;

import java.util.Locale;

/**
 * One workload of the comparison: single values of one size from N clients, batches shaped like an
 * inference request's prefix (N clients each fetching {@code batch} blocks of {@code valueSize} as
 * one request), or metadata requests to kvpool's master.
 */
record Workload(Kind kind, int valueSize, int clients, int batch, MetaOp metaOp) {

  /** What a workload does. */
  enum Kind {
    SINGLE,
    BATCH,
    META
  }

  /** The master requests of the metadata workload. */
  enum MetaOp {
    EXISTS("Exists"),
    GET_REPLICAS("GetReplicaList"),
    SMALL_BATCH("batch of 64 x 1 KiB values (get)");

    final String label;

    MetaOp(String label) {
      this.label = label;
    }
  }

  static Workload single(int valueSize, int clients) {
    return new Workload(Kind.SINGLE, valueSize, clients, 1, null);
  }

  static Workload batch(int blocks, int blockSize, int clients) {
    return new Workload(Kind.BATCH, blockSize, clients, blocks, null);
  }

  static Workload meta(MetaOp op, int clients) {
    return new Workload(
        Kind.META,
        op == MetaOp.SMALL_BATCH ? 1024 : 0,
        clients,
        op == MetaOp.SMALL_BATCH ? 64 : 1,
        op);
  }

  /** Stable identifier, used in the results file and as a key prefix. */
  String id() {
    return switch (kind) {
      case SINGLE -> "single-" + size(valueSize) + "-c" + clients;
      case BATCH -> "batch-" + batch + "x" + size(valueSize) + "-c" + clients;
      case META ->
          "meta-" + metaOp.name().toLowerCase(Locale.ROOT).replace('_', '-') + "-c" + clients;
    };
  }

  /** How the report names it. */
  String label() {
    return switch (kind) {
      case SINGLE -> size(valueSize) + " x " + clients;
      case BATCH -> batch + " x " + size(valueSize) + " batch x " + clients;
      case META -> metaOp.label + " x " + clients;
    };
  }

  /** Bytes moved by one operation (a batch counts as one operation). */
  long bytesPerOp() {
    return (long) valueSize * batch;
  }

  static String size(long bytes) {
    if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
      return (bytes >> 20) + "MiB";
    }
    if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
      return (bytes >> 10) + "KiB";
    }
    return bytes + "B";
  }
}
