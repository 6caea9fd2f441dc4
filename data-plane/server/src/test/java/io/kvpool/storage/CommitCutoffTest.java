package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PutDeadline;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutEndRequest;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.Receipt;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.StatusList;
import io.kvpool.protocol.WriteReply;
import io.kvpool.protocol.WriteRequest;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A storage node commits a replica at the master only while its put may still be acknowledged: a
 * write that completes after the cut-off (PutDeadline) is answered {@code committed = 0}, and its
 * writer's PUT_END decides, as before protocol 2.2. A real master and node on loopback; the writer
 * speaks the protocol by hand.
 */
class CommitCutoffTest {
  private static final Duration T = Duration.ofSeconds(10);
  private Master master;
  private StorageNode node;

  @BeforeEach
  void start() throws Exception {
    MasterConfig config = MasterConfig.defaults("cutoff").withPendingTimeout(Duration.ofSeconds(8));
    master = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
    node =
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), "n1", "127.0.0.1", 4L << 20, 1)
                    .withHeartbeat(Duration.ofMillis(200)))
            .start(T);
  }

  @AfterEach
  void stop() {
    node.close();
    master.close();
  }

  private static RpcConnection open(HostPort hp) throws Exception {
    return RpcConnection.open(hp, new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "writer"), T);
  }

  private WriteReply write(String key, ByteBuffer value, boolean afterCutoff) throws Exception {
    CRC32C crc = new CRC32C();
    crc.update(value.duplicate());
    int checksum = (int) crc.getValue();
    try (RpcConnection m = open(master.rpcEndpoint());
        RpcConnection n = open(node.rpcEndpoint());
        RpcConnection.Deadline dm = m.deadline(T.multipliedBy(2));
        RpcConnection.Deadline dn = n.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new PutStartRequest(
              List.of(new PutStartItem(key, value.remaining(), checksum, 1, 1, List.of())))
          .encode(w);
      PutStartResult p =
          PutStartReply.decode(m.call(Opcode.PUT_START, w).reader()).results().get(0);
      assertThat(p.status()).isEqualTo(ErrorCode.OK);
      long cutoff = PutDeadline.ackCutoffMillis(p.generation(), p.expiresAtMillis());
      assertThat(p.expiresAtMillis() - cutoff)
          .as("the margin: a quarter of the 8 s pending time")
          .isEqualTo(2000);
      while (afterCutoff
          && System.currentTimeMillis() <= cutoff + 50) { // master and node share this JVM's clock
        Thread.sleep(10);
      }
      w = new BodyWriter();
      WriteRequest.of(
              key,
              p.generation(),
              p.replicas().get(0).slices().get(0),
              value.remaining(),
              checksum,
              1,
              p.expiresAtMillis())
          .encode(w);
      WriteReply reply;
      try {
        reply =
            WriteReply.decode(n.call(Opcode.WRITE, w, value.duplicate()).reader(), n.agreedMinor());
      } catch (RemoteErrorException e) {
        if (afterCutoff
            && e.code() == ErrorCode.GRANT_REJECTED
            && System.currentTimeMillis() >= p.expiresAtMillis()) {
          return null; // a loaded machine let the grant expire before the write arrived
        }
        throw e;
      }
      assertThat(reply.receipt()).isNotEmpty();
      if (!reply.committed()) {
        w = new BodyWriter();
        new PutEndRequest(
                List.of(
                    new PutEndItem(
                        key, p.generation(), List.of(new Receipt("n1", reply.receipt())))))
            .encode(w);
        assertThat(StatusList.decode(m.call(Opcode.PUT_END, w).reader()).statuses())
            .containsExactly(ErrorCode.OK);
      }
      return reply;
    }
  }

  @Test
  void aWriteBeforeTheCutoffIsCommittedByTheNode() throws Exception {
    assertThat(write("early", ByteBuffer.allocateDirect(4096), false).committed()).isTrue();
    assertThat(master.metadata().snapshot().objectCount()).isEqualTo(1);
  }

  @Test
  void aWriteAfterTheCutoffIsLeftToItsWritersPutEnd() throws Exception {
    WriteReply late = null;
    for (int attempt = 1; late == null && attempt <= 5; attempt++) {
      late = write("late-" + attempt, ByteBuffer.allocateDirect(4096), true);
    }
    assertThat(late).as("a write between the cut-off and the grant's expiry").isNotNull();
    assertThat(late.committed()).isFalse();
    // an attempt whose grant expired leaves its pending put until the master's sweep drops it
    long until = System.nanoTime() + T.multipliedBy(3).toNanos();
    while (master.metadata().snapshot().pendingObjects() > 0 && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    assertThat(master.metadata().snapshot().pendingObjects()).isZero();
    assertThat(master.metadata().snapshot().objectCount()).isEqualTo(1);
  }
}
