package io.kvpool.master;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool's leader Lease, which also records the storage nodes the leader serves: the annotation
 * {@value #STORAGE_NODES} (a JSON array of node ids), written with every renewal while leading. A
 * master that takes the Lease over learns from it which nodes to wait for before a miss is final
 * (PROTOCOL.md, "Masters").
 */
final class PoolLeaseLock extends LeaseLock {
  static final String STORAGE_NODES = "kvpool.io/storage-nodes";
  private static final Logger LOG = LoggerFactory.getLogger(PoolLeaseLock.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Supplier<Set<String>> served;
  private volatile Set<String> recorded = Set.of();

  /**
   * When the last successful write of the Lease (create or renewal) was sent, System.nanoTime; 0:
   * never.
   */
  private volatile long lastWrittenNanos;

  /**
   * {@code served}: the nodes to record, or null to leave the record as it is (a standby, a leader
   * not yet serving).
   */
  PoolLeaseLock(String namespace, String name, String identity, Supplier<Set<String>> served) {
    super(namespace, name, identity);
    this.served = served;
  }

  /**
   * The storage nodes recorded on the Lease as last read (when taking it over: the previous
   * leader's).
   */
  Set<String> recorded() {
    return recorded;
  }

  @Override
  public synchronized void create(KubernetesClient client, LeaderElectionRecord record) {
    long sent = System.nanoTime();
    super.create(client, record);
    lastWrittenNanos = sent;
  }

  @Override
  public synchronized void update(KubernetesClient client, LeaderElectionRecord record) {
    long sent = System.nanoTime();
    super.update(client, record);
    lastWrittenNanos = sent;
  }

  /**
   * Whether this master wrote the Lease (took or renewed it) less than {@code within} ago, counted
   * from before the write was sent: no other master can have taken it since, as a contender waits a
   * whole lease duration after the last renewal it saw.
   */
  boolean writtenWithin(Duration within) {
    long last = lastWrittenNanos;
    return last != 0 && System.nanoTime() - last < within.toNanos();
  }

  @Override
  protected ObjectMetaBuilder getObjectMeta(String version) {
    ObjectMetaBuilder meta = super.getObjectMeta(version);
    Set<String> nodes = served.get();
    return nodes == null ? meta : meta.addToAnnotations(STORAGE_NODES, encode(nodes));
  }

  @Override
  protected LeaderElectionRecord toRecord(Lease lease) {
    Map<String, String> annotations = lease.getMetadata().getAnnotations();
    recorded = decode(annotations == null ? null : annotations.get(STORAGE_NODES));
    return super.toRecord(lease);
  }

  static String encode(Set<String> nodes) {
    try {
      return JSON.writeValueAsString(new TreeSet<>(nodes));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("node ids always serialize", e);
    }
  }

  /**
   * Empty for no record or one that does not parse (recovery then waits for quiet registrations, as
   * before).
   */
  static Set<String> decode(String value) {
    if (value == null || value.isBlank()) {
      return Set.of();
    }
    try {
      return Set.copyOf(JSON.readValue(value, new TypeReference<List<String>>() {}));
    } catch (JsonProcessingException | RuntimeException e) {
      LOG.warn(
          "event=storage_nodes_record_unreadable annotation={} error=\"{}\"",
          STORAGE_NODES,
          e.getMessage());
      return Set.of();
    }
  }
}
