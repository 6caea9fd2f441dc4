package io.kvpool.storage;

import static io.kvpool.storage.Conditions.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.StorageStatus;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.ObjectNotFoundException;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.BlockMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 30, "kill -9 during writes, then restart": a storage node in a JVM of its own (started as
 * production starts it) with a small memory and a disk tier larger than everything put, so every
 * put evicts and the evicted values spill to disk continuously; several writers put while the node
 * is killed -9, then it starts again on the same tier folder under the same master (in this JVM).
 *
 * <p>What must hold is read from the files themselves, with a scan of the documented record format
 * that is not the tier's own ({@link TierFileScan}), taken between the kill and the restart: every
 * record that checks holds the bytes that were put and is served after the restart; the records
 * torn by the kill are the ones the restarted tier drops; no read returns other bytes; the tier is
 * healthy and {@code du} stays under its cap. At R=1 on one node a value acknowledged before the
 * kill and not on disk was in the node's memory (anonymous memory: gone with the process), so what
 * is missing can weigh at most the node's memory.
 */
class DiskTierKillTest {
  private static final Duration T = Duration.ofSeconds(60);
  private static final long MEMORY = 16L << 20;
  private static final long DISK = 256L << 20; // several times what is put: nothing is reclaimed
  private static final int WRITERS = 3;

  private final List<Path> dirs = new ArrayList<>();
  private Master master;
  private StorageNodeJvm node;

  @AfterEach
  void stop() throws Exception {
    if (node != null) {
      node.close();
    }
    if (master != null) {
      master.close();
    }
    for (Path d : dirs) {
      Folders.delete(d);
    }
  }

  @Test
  void aNodeKilledWhileValuesSpillComesBackWithEveryIntactRecordAndDropsTheTornOnes()
      throws Exception {
    long t0 = System.nanoTime();
    Path disks = dir("disks");
    Path log = dir("log").resolve("n0.log");
    // a node TTL longer than the test: the restart replaces a registration the master still holds
    master =
        new Master(
                MasterSettings.local(
                    MasterConfig.defaults("spillkill")
                        .withTtls(Duration.ofSeconds(120), Duration.ofMillis(500)),
                    "127.0.0.1",
                    0,
                    0))
            .start();
    List<String> args =
        List.of(
            "--master", master.rpcEndpoint().toString(),
            "--node-id", "n0",
            "--memory", Long.toString(MEMORY),
            "--heartbeat", "100ms",
            "--disk-size", Long.toString(DISK),
            "--disk-dir", disks.toString(),
            "--disk-file-size", Long.toString(4L << 20));
    Path tier = disks.resolve("n0");
    node = StorageNodeJvm.start(args, log, T);
    try {
      Map<String, Integer> acknowledged = new ConcurrentHashMap<>();
      List<String> failedBeforeKill = new ArrayList<>();
      AtomicLong acknowledgedBytes = new AtomicLong();
      AtomicBoolean killed = new AtomicBoolean();
      long maxDu = 0;

      KvPoolClient writing = client("spillkill-writers");
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        Thread t =
            new Thread(
                () -> {
                  for (int i = 0; !killed.get(); i++) {
                    String key = "w" + writer + "/" + i;
                    ByteBuffer v = value(key);
                    try {
                      if (writer == 0) {
                        writing.put(key, v, 1, metadata(key));
                      } else {
                        writing.put(key, v, 1);
                      }
                      acknowledged.put(key, v.capacity());
                      acknowledgedBytes.addAndGet(v.capacity());
                    } catch (RuntimeException e) {
                      if (!killed.get()) {
                        synchronized (failedBeforeKill) {
                          failedBeforeKill.add(key + ": " + e);
                        }
                      }
                    }
                  }
                },
                "spill-writer-" + w);
        t.setDaemon(true);
        writers.add(t);
        t.start();
      }

      // kill once the writers put three times the memory and the tier holds records: every put
      // now evicts, so the node is spilling while it dies
      long deadline = System.nanoTime() + T.toNanos();
      StorageStatus.Disk before;
      while (true) {
        before = node.status().disk();
        maxDu = Math.max(maxDu, DiskUsage.of(tier));
        assertThat(maxDu).as("du of the tier").isLessThanOrEqualTo(DISK);
        if (acknowledgedBytes.get() >= 3 * MEMORY && before.records() > 0) {
          break;
        }
        assertThat(System.nanoTime())
            .as("writers reach 3x memory: %d bytes acknowledged", acknowledgedBytes.get())
            .isLessThan(deadline);
        Thread.sleep(20); // polling the writers' progress and the node's /status
      }
      node.kill();
      killed.set(true);
      writing.close(); // puts still in flight fail at once
      for (Thread t : writers) {
        t.join(T.toMillis());
        assertThat(t.isAlive()).as(t.getName() + " stopped").isFalse();
      }
      Map<String, Integer> acked = Map.copyOf(acknowledged);
      System.out.printf(
          "killed after %d puts acknowledged (%d MiB, %d failed before the kill: %s); the tier had"
              + " %d records, %d spills, %d spills failed%n",
          acked.size(),
          acknowledgedBytes.get() >> 20,
          failedBeforeKill.size(),
          failedBeforeKill.stream().limit(3).toList(),
          before.records(),
          before.spills(),
          before.spillFailures());
      assertThat(before.spillFailures())
          .as(
              "spills that failed with the tier far from full (each one an acknowledged value lost)")
          .isZero();

      // the files as the kill left them, read apart from the tier's code
      TierFileScan scan = TierFileScan.of(tier);
      System.out.printf(
          "tier after the kill: %d intact records, %d corrupt, %d torn tails%n",
          scan.intact().size(), scan.corrupt(), scan.tornTails());
      for (TierFileScan.Record r : scan.intact().values()) {
        ByteBuffer put = value(r.key());
        assertThat(r.size()).as("size of %s on disk", r.key()).isEqualTo(put.capacity());
        assertThat(r.checksum()).as("CRC32C of %s on disk", r.key()).isEqualTo(crc(put));
      }
      System.out.printf(
          "side files: block metadata of %d of the intact records%n", scan.metadata().size());
      assertThat(scan.metadata()).as("writer 0's records with block metadata").isNotEmpty();
      // writer 0 put with block metadata: each of its records on disk has it in its side file,
      // written with the record's header, so a kill never leaves one without the other
      for (String key : scan.intact().keySet()) {
        if (key.startsWith("w0/")) {
          assertThat(scan.metadata().get(key))
              .as("block metadata of %s in its side file", key)
              .isEqualTo(metadata(key));
        } else {
          assertThat(scan.metadata()).as("no metadata for %s", key).doesNotContainKey(key);
        }
      }

      long restart = System.nanoTime();
      node = StorageNodeJvm.start(args, log, T);
      StorageStatus.Disk disk = node.status().disk();
      System.out.printf(
          "restarted in %d ms: %s%n", (System.nanoTime() - restart) / 1_000_000, disk);
      assertThat(disk.healthy()).as("tier health: %s", disk.message()).isTrue();
      // an intact record of a put in flight at the kill (never acknowledged) may be released by the
      // master when the node registers again; every acknowledged one is adopted
      long ackedOnDisk = scan.intact().keySet().stream().filter(acked::containsKey).count();
      assertThat(disk.records()).isBetween((int) ackedOnDisk, scan.intact().size());
      assertThat(disk.droppedAtStart()).isEqualTo(scan.corrupt());
      assertThat(disk.reclaimedFiles()).as("nothing reclaimed: the tier holds it all").isZero();
      assertThat(DiskUsage.of(tier)).isLessThanOrEqualTo(DISK);
      // the master holds what the node's new inventory holds: the tier's records, no memory replica
      eventually(
          T,
          () ->
              assertThat(master.status().objectCount())
                  .isBetween(ackedOnDisk, (long) scan.intact().size()));

      List<String> missing = new ArrayList<>();
      long missingBytes = 0;
      int read = 0;
      try (KvPoolClient reading = client("spillkill-reader")) {
        for (String key : scan.intact().keySet()) {
          ByteBuffer got = getOrNull(reading, key);
          if (got != null || acked.containsKey(key)) {
            assertThat(got).as("intact record %s", key).isEqualTo(value(key));
            read++;
          }
        }
        for (Map.Entry<String, Integer> e : acked.entrySet()) {
          if (scan.intact().containsKey(e.getKey())) {
            continue;
          }
          ByteBuffer got = getOrNull(reading, e.getKey());
          if (got == null) {
            missing.add(e.getKey());
            missingBytes += e.getValue();
          } else {
            assertThat(got).as(e.getKey()).isEqualTo(value(e.getKey()));
          }
        }
      }
      System.out.printf(
          "%d values read back byte-exact; %d acknowledged values missing (%d KiB: in memory at the"
              + " kill); %d s in all%n",
          read, missing.size(), missingBytes >> 10, (System.nanoTime() - t0) / 1_000_000_000);
      assertThat(scan.intact().keySet())
          .as("every record on disk is an acknowledged put or one in flight at the kill")
          .allSatisfy(k -> assertThat(k).startsWith("w"));
      assertThat(missingBytes)
          .as("acknowledged values missing (only those in memory may be): %s", missing)
          .isLessThanOrEqualTo(MEMORY);
      assertThat(scan.intact().size())
          .as("most of what was acknowledged is on disk")
          .isGreaterThan(acked.size() / 2);
    } catch (AssertionError | Exception e) {
      System.err.println("----- storage node n0 log -----\n" + node.logTail(80));
      throw e;
    }
  }

  private KvPoolClient client(String id) throws IOException {
    return KvPoolClient.connect(
        ClientConfig.builder()
            .master(master.rpcEndpoint())
            .clientId(id)
            .timeout(Duration.ofSeconds(10))
            .operationTimeout(Duration.ofSeconds(30))
            .build());
  }

  /** The value put under {@code key}: 64-256 KiB, a function of the key alone. */
  private static ByteBuffer value(String key) {
    SplittableRandom random = new SplittableRandom(key.hashCode());
    // 64 KiB to 512 KiB: disk reads of values from 256 KiB up are sent from the tier's files, the
    // smaller ones from staging memory
    byte[] bytes = new byte[64 * 1024 + random.nextInt(448 * 1024)];
    random.nextBytes(bytes);
    return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
  }

  /** The block metadata writer 0 puts with {@code key}: a function of the key alone. */
  private static BlockMetadata metadata(String key) {
    SplittableRandom random = new SplittableRandom(key.hashCode() * 31L);
    List<byte[]> hashes = new ArrayList<>();
    for (int i = 0; i < 1 + random.nextInt(16); i++) {
      byte[] h = new byte[32];
      random.nextBytes(h);
      hashes.add(h);
    }
    return new BlockMetadata(
        false, hashes, new byte[0], random.ints(16L * hashes.size(), 0, 150_000).toArray(), 16, 0);
  }

  private static int crc(ByteBuffer value) {
    CRC32C crc = new CRC32C();
    crc.update(value.duplicate());
    return (int) crc.getValue();
  }

  private static ByteBuffer getOrNull(KvPoolClient client, String key) {
    try {
      return client.get(key);
    } catch (ObjectNotFoundException e) {
      return null;
    }
  }

  private Path dir(String name) throws IOException {
    Path d = Files.createTempDirectory("kvpool-spillkill-" + name + "-");
    dirs.add(d);
    return d;
  }
}
