package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.VersionInfo;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.BodyReader;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ReadBatchReply;
import io.kvpool.protocol.ReadBatchRequest;
import io.kvpool.protocol.ReadObjectRequest;
import io.kvpool.protocol.ReadReply;
import io.kvpool.protocol.ReadRequest;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.ReplicaLocation;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.Slice;
import io.kvpool.storage.disk.DiskTier;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A reader that looked an object up (GET_REPLICAS: its memory slice and a read token, under a read
 * lease) and then paused, while puts that needed the room moved the leased object to the node's
 * disk tier and gave its memory range to another object. When the reader resumes with the READ of
 * its lookup, it must never receive the other object's bytes: the node refuses the READ (the range
 * no longer holds the object its token names). A fresh lookup reads the disk copy byte-exact, as
 * does a client whose cached location went stale. One real master and one real storage node with a
 * disk tier, on loopback.
 */
class PausedReaderTierMoveTest {
  private static final Duration T = Duration.ofSeconds(30);
  private static final long NODE_MEMORY = 16L << 20;
  private static final int BIG = 12 << 20;
  private static final int VALUE = 1 << 20;

  private Path dir;
  private Master master;
  private StorageNode node;
  private KvPoolClient writer;
  private KvPoolClient reader;
  private KvPoolClient batchReader;

  @BeforeEach
  void start() throws Exception {
    // a lease far longer than the test: the paused reader's token is still valid when it resumes
    MasterConfig config =
        MasterConfig.defaults("paused").withTtls(Duration.ofSeconds(10), Duration.ofSeconds(60));
    master = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
    dir = Files.createTempDirectory("kvpool-paused-reader-");
    node =
        new StorageNode(
                node(
                    StorageConfig.local(master.rpcEndpoint(), "n1", "127.0.0.1", NODE_MEMORY, 1)
                        .withHeartbeat(Duration.ofMillis(100))
                        .withDisk(new DiskTier.Settings(dir, 128L << 20, 16L << 20, 0.9, 0.8))))
            .start(T);
    writer = client("writer");
    reader = client("reader");
    batchReader = client("batch-reader");
  }

  /** The node under test: here anonymous memory, so every reply is copied. */
  StorageConfig node(StorageConfig local) throws IOException {
    return local;
  }

  /** After the pool stopped: what the node left to remove. */
  void stopped() throws IOException {}

  private KvPoolClient client(String id) throws IOException {
    return KvPoolClient.connect(
        ClientConfig.builder().master(master.rpcEndpoint()).clientId(id).timeout(T).build());
  }

  @AfterEach
  void stop() throws Exception {
    batchReader.close();
    reader.close();
    writer.close();
    node.close();
    master.close();
    stopped();
    Folders.delete(dir);
  }

  @Test
  void aReaderPausedWhileItsObjectMovesToDiskNeverReadsTheObjectThatReusedItsRange()
      throws Exception {
    ByteBuffer victim = random(VALUE, 1);
    writer.put("victim", victim, 1);
    assertThat(reader.get("victim"))
        .as("read once: the reader caches its location")
        .isEqualTo(victim);
    assertThat(batchReader.getBatch(List.of("victim")).get("victim"))
        .as("read once in a batch: this reader caches its location too")
        .isEqualTo(victim);
    try (RpcConnection paused =
        RpcConnection.open(
            node.rpcEndpoint(),
            new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "paused-reader"),
            T)) {
      // the lookup; then the reader pauses before its READ
      ReplicaListResult lookup = lookup("victim");
      ReplicaLocation location = lookup.replicas().get(0);
      assertThat(location.onDisk()).as("looked up in memory").isFalse();
      Slice slice = location.slices().get(0);

      // meanwhile puts need the room: the leased victim moves to disk, its range goes to another
      String reuser = fillUntilReused(slice);
      assertThat(lookup("victim").replicas())
          .as("the victim is on disk now")
          .allMatch(ReplicaLocation::onDisk);

      // the reader resumes: READ of its lookup, token still valid
      ReadRequest read =
          new ReadRequest(
              "victim",
              lookup.generation(),
              slice.segmentId(),
              slice.offset(),
              slice.length(),
              lookup.expiresAtMillis(),
              location.token());
      BodyWriter w = new BodyWriter();
      read.encode(w);
      try (RpcConnection.Deadline d = paused.deadline(T)) {
        ReadReply got = ReadReply.decode(paused.call(Opcode.READ, w).reader());
        ByteBuffer bytes = ByteBuffer.allocateDirect(got.length());
        paused.readPayload(bytes);
        bytes.flip();
        fail(
            "the READ of a range now holding %s was served (%d bytes, the victim's: %s)",
            reuser, got.length(), bytes.equals(victim));
      } catch (RemoteErrorException refused) {
        assertThat(refused.code()).as(refused.getMessage()).isEqualTo(ErrorCode.NOT_FOUND);
      }
      BodyWriter batch = new BodyWriter();
      new ReadBatchRequest(List.of(read)).encode(batch);
      try (RpcConnection.Deadline d = paused.deadline(T)) {
        ReadBatchReply got = ReadBatchReply.decode(paused.call(Opcode.READ_BATCH, batch).reader());
        assertThat(got.results())
            .extracting(ReadBatchReply.Result::status)
            .containsExactly(ErrorCode.NOT_FOUND);
      }

      // the same token names the object, wherever it is: READ_OBJECT serves the disk copy
      BodyWriter whole = new BodyWriter();
      new ReadObjectRequest(
              "victim", lookup.generation(), lookup.expiresAtMillis(), location.token())
          .encode(whole);
      try (RpcConnection.Deadline d = paused.deadline(T)) {
        ReadReply got = ReadReply.decode(paused.call(Opcode.READ_OBJECT, whole).reader());
        ByteBuffer bytes = ByteBuffer.allocateDirect(got.length());
        paused.readPayload(bytes);
        assertThat(bytes.flip())
            .as("the disk copy through the paused reader's token")
            .isEqualTo(victim);
      }
    }
    assertThat(reader.get("victim"))
        .as("a client whose cached location went stale reads the disk copy")
        .isEqualTo(victim);
    assertThat(batchReader.getBatch(List.of("victim")).get("victim"))
        .as("so does a batch whose cached location went stale")
        .isEqualTo(victim);
    try (KvPoolClient fresh = client("fresh")) {
      assertThat(fresh.get("victim")).as("a fresh lookup reads the disk copy").isEqualTo(victim);
    }
  }

  /**
   * As above, with the reader stalled inside its reply (it read the first 64 KiB of a 12 MiB value
   * and stopped reading) when its object moves to disk and the range is reused: whatever it still
   * receives is the victim's bytes (the node stops the reply when the memory replica goes).
   */
  @Test
  void aReaderStalledInItsReplyWhileItsObjectMovesToDiskNeverReceivesTheObjectThatReusedItsRange()
      throws Exception {
    ByteBuffer victim = random(BIG, 2);
    writer.put("victim", victim, 1);
    ReplicaListResult lookup = lookup("victim");
    ReplicaLocation location = lookup.replicas().get(0);
    Slice slice = location.slices().get(0);
    BodyWriter w = new BodyWriter();
    new ReadRequest(
            "victim",
            lookup.generation(),
            slice.segmentId(),
            slice.offset(),
            slice.length(),
            lookup.expiresAtMillis(),
            location.token())
        .encode(w);
    int head = 64 << 10;
    int got;
    try (StalledReader stalled = new StalledReader(node.rpcEndpoint())) {
      ByteBuffer body = stalled.request(Opcode.READ, w);
      assertThat(ReadReply.decode(new BodyReader(body)).length()).isEqualTo(BIG);
      stalled.readHead(victim, head);
      got = stalled.resume(victim, head, fillUntilReused(slice) + " reused the range");
    }
    System.out.printf(
        "the stalled reader received %d of the reply's last %d bytes, all the victim's%n",
        got, BIG - head);
    try (KvPoolClient fresh = client("fresh")) {
      assertThat(fresh.get("victim")).as("a fresh lookup reads the disk copy").isEqualTo(victim);
    }
  }

  /**
   * A reader stalled inside a READ_OBJECT reply of a disk record, which the node sends from the
   * tier file's pages, while puts make the tier reclaim that file: the node stops the reply, so the
   * file's blocks are freed while the reader still stalls (the tier's cap is physical: no process
   * descriptor keeps a reclaimed file), and every byte the reader still receives is the victim's.
   */
  @Test
  void aReaderStalledInADiskReplyWhileTheTierReclaimsItsFileIsStoppedAndTheFileFreed()
      throws Exception {
    ByteBuffer victim = random(BIG, 3);
    writer.put("victim", victim, 1);
    fillUntilReused(lookup("victim").replicas().get(0).slices().get(0));
    ReplicaListResult lookup = lookup("victim");
    ReplicaLocation location = lookup.replicas().get(0);
    assertThat(location.onDisk()).as("the victim is on disk now").isTrue();
    DiskTier.ObjectRef record = new DiskTier.ObjectRef("victim", lookup.generation());
    BodyWriter w = new BodyWriter();
    new ReadObjectRequest("victim", lookup.generation(), lookup.expiresAtMillis(), location.token())
        .encode(w);
    int head = 64 << 10;
    int got;
    try (StalledReader stalled = new StalledReader(node.rpcEndpoint())) {
      ByteBuffer body = stalled.request(Opcode.READ_OBJECT, w);
      assertThat(ReadReply.decode(new BodyReader(body)).length()).isEqualTo(BIG);
      stalled.readHead(victim, head);
      assertThat(node.status().disk().reads()).as("the reply is a disk read").isPositive();
      assertThat(deletedTierFilesHeld())
          .as("the reply holds the victim's file, which is not deleted yet")
          .isEmpty();
      int puts = 0;
      while (node.diskTier().contains(record)) {
        assertThat(puts).as("puts until the tier reclaimed the victim's file").isLessThan(512);
        writer.put("reclaim/" + puts, random(VALUE, 1000 + puts), 1);
        puts++;
      }
      System.out.printf("the tier reclaimed the victim's file after %d puts%n", puts);
      long deadline = System.nanoTime() + T.toNanos();
      List<String> held;
      while (!(held = deletedTierFilesHeld()).isEmpty()) {
        assertThat(System.nanoTime())
            .as("the reclaimed file is released while the reader stalls; still held: %s", held)
            .isLessThan(deadline);
        Thread.sleep(10); // polling the node's descriptors, which nothing signals
      }
      got = stalled.resume(victim, head, "the tier reclaimed the file the reply is sent from");
    }
    System.out.printf(
        "the stalled reader received %d of the reply's last %d bytes, all the victim's%n",
        got, BIG - head);
  }

  /**
   * The tier files this process (the node runs in it) holds open though they are deleted: their
   * blocks stay allocated, unseen by {@code du}.
   */
  private List<String> deletedTierFilesHeld() throws IOException {
    List<String> held = new ArrayList<>();
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path fd : fds) {
        String target;
        try {
          target = Files.readSymbolicLink(fd).toString();
        } catch (IOException gone) {
          continue; // closed since the listing
        }
        if (target.startsWith(dir.toString()) && target.endsWith(" (deleted)")) {
          held.add(target);
        }
      }
    }
    return held;
  }

  /**
   * Puts 1 MiB values until the leased victim moved to disk and one of them took (part of) its
   * memory range {@code old}; returns that one's key.
   */
  private String fillUntilReused(Slice old) throws Exception {
    List<String> fills = new ArrayList<>();
    for (int i = 0; ; i++) {
      assertThat(i)
          .as("puts until the victim's range was reused; %s", master.status())
          .isLessThan(64);
      String key = "fill/" + i;
      writer.put(key, random(VALUE, 100 + i), 1);
      fills.add(key);
      String reuser = reuserOf(old, fills);
      if (reuser != null) {
        System.out.printf("%s reused the victim's range %s after %d puts%n", reuser, old, i + 1);
        return reuser;
      }
    }
  }

  /** Which of {@code keys}, if any, has a memory slice overlapping {@code old}. */
  private String reuserOf(Slice old, List<String> keys) {
    List<ReplicaListResult> all = master.metadata().getReplicas(keys);
    for (int k = 0; k < keys.size(); k++) {
      for (ReplicaLocation l : all.get(k).replicas()) {
        for (Slice s : l.slices()) {
          if (s.segmentId() == old.segmentId()
              && s.offset() < old.end()
              && old.offset() < s.end()) {
            return keys.get(k);
          }
        }
      }
    }
    return null;
  }

  private ReplicaListResult lookup(String key) throws Exception {
    try (RpcConnection m =
            RpcConnection.open(
                master.rpcEndpoint(),
                new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "paused-reader"),
                T);
        RpcConnection.Deadline d = m.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new KeyList(List.of(key)).encode(w);
      return ReplicaListReply.decode(m.call(Opcode.GET_REPLICAS, w).reader()).results().get(0);
    }
  }

  private static ByteBuffer random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return ByteBuffer.allocateDirect(n).put(b).flip();
  }
}
