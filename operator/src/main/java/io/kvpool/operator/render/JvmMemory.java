package io.kvpool.operator.render;

import java.util.List;

/**
 * Heap and direct-memory limits of a data-plane JVM, derived from the memory its container gives
 * the JVM (the container's memory limit, less what native segments take in the storage nodes): half
 * for the heap, a quarter for direct buffers, the rest for metaspace, code cache, thread stacks and
 * malloc arenas. A fixed -Xmx ignores the container: too large and the kernel OOM-kills the pod,
 * too small and memory the pod reserved stays unused.
 *
 * @param heapMiB value of -Xmx, in MiB
 * @param directMiB value of -XX:MaxDirectMemorySize, in MiB
 */
public record JvmMemory(long heapMiB, long directMiB) {
  /** The least budget a data-plane JVM is given; the validator refuses masters below it. */
  public static final long MIN_BUDGET_BYTES = 256L << 20;

  public static JvmMemory forBudget(long budgetBytes) {
    long mib = Math.max(budgetBytes, MIN_BUDGET_BYTES) >> 20;
    return new JvmMemory(mib / 2, mib / 4);
  }

  /** The JVM flags, before the main class. */
  public List<String> flags() {
    return List.of("-Xmx" + heapMiB + "m", "-XX:MaxDirectMemorySize=" + directMiB + "m");
  }
}
