package io.kvpool.protocoldoc;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.CountReply;
import io.kvpool.protocol.DiskDrop;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Extent;
import io.kvpool.protocol.ExtentCommit;
import io.kvpool.protocol.ExtentGrantReply;
import io.kvpool.protocol.ExtentGrantRequest;
import io.kvpool.protocol.ExtentReturn;
import io.kvpool.protocol.ExtentWriteRequest;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Heartbeat;
import io.kvpool.protocol.HeartbeatReply;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.NodeCommit;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PinRequest;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutEndRequest;
import io.kvpool.protocol.PutRef;
import io.kvpool.protocol.PutRevokeRequest;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartMetaRequest;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.ReadBatchReply;
import io.kvpool.protocol.ReadBatchRequest;
import io.kvpool.protocol.ReadObjectRequest;
import io.kvpool.protocol.ReadRequest;
import io.kvpool.protocol.RegisterInventory;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RegisterReply;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.ReleaseRequest;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.RemoveMatchingReply;
import io.kvpool.protocol.RemoveMatchingRequest;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.ReplicateRequest;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.SegmentInfo;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.StatsReply;
import io.kvpool.protocol.StatusList;
import io.kvpool.protocol.WriteBatchReply;
import io.kvpool.protocol.WriteBatchRequest;
import io.kvpool.protocol.WriteRequest;
import io.kvpool.storage.StorageConfig;
import io.kvpool.storage.StorageNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PROTOCOL.md against the code: the documented error codes and opcodes are exactly the code's, and
 * every opcode the document lists is served by the documented role over a real socket with the
 * documented reply (or, for a request the sender may not make, the documented refusal).
 */
class ProtocolDocumentTest {
  private static final Duration T = Duration.ofSeconds(10);
  private static final Pattern ROW =
      Pattern.compile("^\\| (\\d+) \\| ([A-Z_]+) \\|", Pattern.MULTILINE);

  private Master master;
  private StorageNode node;

  @BeforeEach
  void start() throws Exception {
    master =
        new Master(MasterSettings.local(MasterConfig.defaults("doc"), "127.0.0.1", 0, 0)).start();
    node =
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), "doc-node", "127.0.0.1", 1 << 20, 1))
            .start(T);
  }

  @AfterEach
  void stop() {
    node.close();
    master.close();
  }

  private static String document() throws IOException {
    return Files.readString(Path.of("..", "PROTOCOL.md"), StandardCharsets.UTF_8);
  }

  /** The rows of the table under {@code heading}: number to name. */
  private static Map<Integer, String> table(String heading) throws IOException {
    String doc = document();
    int start = doc.indexOf(heading);
    assertThat(start).as("PROTOCOL.md has a section " + heading).isNotNegative();
    int end = doc.indexOf("\n## ", start + heading.length());
    Matcher m = ROW.matcher(doc.substring(start, end < 0 ? doc.length() : end));
    Map<Integer, String> rows = new LinkedHashMap<>();
    while (m.find()) {
      rows.put(Integer.parseInt(m.group(1)), m.group(2));
    }
    return rows;
  }

  @Test
  void documentedErrorCodesAreTheCodes() throws Exception {
    Map<Integer, String> documented = table("## Error codes");
    Map<Integer, String> code = new LinkedHashMap<>();
    for (ErrorCode c : ErrorCode.values()) {
      code.put(c.code(), c.name());
    }
    assertThat(documented).isEqualTo(code);
  }

  @Test
  void documentedOpcodesAreTheOpcodes() throws Exception {
    Map<Integer, String> documented = table("## Opcodes");
    Map<Integer, String> code = new LinkedHashMap<>();
    for (Opcode o : Opcode.values()) {
      code.put(o.code(), o.name());
    }
    assertThat(documented).isEqualTo(code);
  }

  private RpcConnection open(HostPort endpoint, Role role) throws IOException {
    return RpcConnection.open(
        endpoint, new Handshake(VersionInfo.CURRENT, role, "", "doc-" + role), T);
  }

  /** The reply body of a request, or the error code it was refused with. */
  private static Object exchange(RpcConnection c, Opcode op, BodyWriter body) throws IOException {
    try (RpcConnection.Deadline d = c.deadline(T)) {
      return c.call(op, body);
    } catch (RemoteErrorException e) {
      return e.code();
    }
  }

  @Test
  void everyDocumentedOpcodeIsServedWithItsDocumentedReply() throws Exception {
    Set<Opcode> walked = EnumSet.of(Opcode.HANDSHAKE); // every connection below starts with one
    try (RpcConnection client = open(master.rpcEndpoint(), Role.CLIENT);
        RpcConnection storage = open(master.rpcEndpoint(), Role.STORAGE);
        RpcConnection toNode = open(node.rpcEndpoint(), Role.CLIENT)) {
      assertThat(((Frame) exchange(client, Opcode.PING, null)).body().remaining()).isZero();
      assertThat(((Frame) exchange(toNode, Opcode.PING, null)).body().remaining()).isZero();
      walked.add(Opcode.PING);

      BodyWriter w = new BodyWriter();
      new RegisterNode("doc-2", "127.0.0.1:1", List.of(new SegmentInfo(0, 1 << 20)), 0, true)
          .encode(w, storage.agreedMinor());
      assertThat(exchange(client, Opcode.REGISTER_NODE, w))
          .as("REGISTER_NODE from a client")
          .isEqualTo(ErrorCode.MALFORMED_REQUEST);
      RegisterReply reg =
          RegisterReply.decode(((Frame) exchange(storage, Opcode.REGISTER_NODE, w)).reader());
      assertThat(reg.registrationId()).hasSize(16);
      assertThat(reg.nodeKey()).hasSize(32);
      walked.add(Opcode.REGISTER_NODE);

      w = new BodyWriter();
      new RegisterInventory(reg.registrationId(), true, List.of(), List.of()).encode(w);
      assertThat(((Frame) exchange(storage, Opcode.REGISTER_INVENTORY, w)).body().remaining())
          .isZero();
      assertThat(exchange(storage, Opcode.REGISTER_INVENTORY, w))
          .as("a finished registration")
          .isEqualTo(ErrorCode.UNKNOWN_NODE);
      walked.add(Opcode.REGISTER_INVENTORY);

      w = new BodyWriter();
      new Heartbeat("doc-2", reg.registrationId(), 0).encode(w, storage.agreedMinor());
      assertThat(
              HeartbeatReply.decode(
                      ((Frame) exchange(storage, Opcode.HEARTBEAT, w)).reader(),
                      storage.agreedMinor())
                  .known())
          .isTrue();
      walked.add(Opcode.HEARTBEAT);

      BodyWriter commit = new BodyWriter();
      new NodeCommit(
              "doc-2",
              reg.registrationId(),
              List.of(new NodeCommit.Item("nothing-pending", 1, new byte[16])))
          .encode(commit);
      storage.send(Opcode.COMMIT, commit);
      assertThat(
              HeartbeatReply.decode(
                      ((Frame) exchange(storage, Opcode.HEARTBEAT, w)).reader(),
                      storage.agreedMinor())
                  .known())
          .as("the next reply on the connection answers the heartbeat: a COMMIT gets none")
          .isTrue();
      assertThat(exchange(client, Opcode.COMMIT, commit))
          .as("COMMIT from a client")
          .isEqualTo(ErrorCode.MALFORMED_REQUEST);
      assertThat(((Frame) exchange(client, Opcode.PING, null)).body().remaining())
          .as("the client's connection after its refused COMMIT")
          .isZero();
      walked.add(Opcode.COMMIT);

      BodyWriter drop = new BodyWriter();
      new DiskDrop("doc-2", reg.registrationId(), List.of(new PutRef("not-on-disk", 1)))
          .encode(drop);
      storage.send(Opcode.DISK_DROP, drop);
      assertThat(
              HeartbeatReply.decode(
                      ((Frame) exchange(storage, Opcode.HEARTBEAT, w)).reader(),
                      storage.agreedMinor())
                  .known())
          .as("a DISK_DROP gets no reply either")
          .isTrue();
      assertThat(exchange(client, Opcode.DISK_DROP, drop))
          .as("DISK_DROP from a client")
          .isEqualTo(ErrorCode.MALFORMED_REQUEST);
      walked.add(Opcode.DISK_DROP);

      w = new BodyWriter();
      new PutStartRequest(
              List.of(
                  new PutStartItem("k", 10, 0, 1, 1, List.of()),
                  new PutStartItem("x".repeat(5000), 10, 0, 1, 2, List.of())))
          .encode(w);
      var started =
          PutStartReply.decode(((Frame) exchange(client, Opcode.PUT_START, w)).reader()).results();
      assertThat(started.get(0).status()).isEqualTo(ErrorCode.OK);
      assertThat(started.get(1).status())
          .as("an item over a limit, answered per item")
          .isEqualTo(ErrorCode.LIMIT_EXCEEDED);
      walked.add(Opcode.PUT_START);

      w = new BodyWriter();
      BlockMetadata blocks =
          new BlockMetadata(false, List.of(new byte[32]), new byte[0], new int[] {1, 2}, 16, 0);
      BlockMetadata tooMany =
          new BlockMetadata(
              false,
              java.util.Collections.nCopies(65, new byte[8]),
              new byte[0],
              new int[0],
              16,
              0);
      new PutStartMetaRequest(
              List.of(
                  new PutStartItem("meta", 10, 0, 1, 3, List.of()),
                  new PutStartItem("meta-over", 10, 0, 1, 4, List.of()),
                  new PutStartItem("meta-none", 10, 0, 1, 5, List.of())),
              java.util.Arrays.asList(blocks, tooMany, null))
          .encode(w);
      var withMeta =
          PutStartReply.decode(((Frame) exchange(client, Opcode.PUT_START_META, w)).reader())
              .results();
      assertThat(withMeta.get(0).status()).isEqualTo(ErrorCode.OK);
      assertThat(withMeta.get(1).status())
          .as("metadata over a limit, answered per item")
          .isEqualTo(ErrorCode.LIMIT_EXCEEDED);
      assertThat(withMeta.get(1).message()).contains("65 block hashes");
      assertThat(withMeta.get(2).status()).isEqualTo(ErrorCode.OK);
      walked.add(Opcode.PUT_START_META);

      w = new BodyWriter();
      new PutEndRequest(List.of(new PutEndItem("k", started.get(0).generation(), List.of())))
          .encode(w);
      assertThat(
              StatusList.decode(((Frame) exchange(client, Opcode.PUT_END, w)).reader()).statuses())
          .containsExactly(ErrorCode.WRITE_INCOMPLETE);
      walked.add(Opcode.PUT_END);

      w = new BodyWriter();
      new PutRevokeRequest(List.of(new PutRef("k", started.get(0).generation()))).encode(w);
      assertThat(
              StatusList.decode(((Frame) exchange(client, Opcode.PUT_REVOKE, w)).reader())
                  .statuses())
          .containsExactly(ErrorCode.NOT_FOUND);
      walked.add(Opcode.PUT_REVOKE);

      for (Opcode op : List.of(Opcode.GET_REPLICAS, Opcode.EXISTS, Opcode.REMOVE)) {
        w = new BodyWriter();
        new KeyList(List.of("missing")).encode(w);
        Frame reply = (Frame) exchange(client, op, w);
        ErrorCode status =
            op == Opcode.GET_REPLICAS
                ? ReplicaListReply.decode(reply.reader()).results().get(0).status()
                : StatusList.decode(reply.reader()).statuses().get(0);
        assertThat(status)
            .as(op + " of a missing key")
            .isIn(ErrorCode.NOT_FOUND, ErrorCode.RECOVERING);
        walked.add(op);
      }
      assertThat(
              CountReply.decode(((Frame) exchange(client, Opcode.REMOVE_ALL, null)).reader())
                  .count())
          .isZero();
      walked.add(Opcode.REMOVE_ALL);
      w = new BodyWriter();
      new RemoveMatchingRequest("^missing$").encode(w);
      Object matching = exchange(client, Opcode.REMOVE_MATCHING, w);
      if (matching instanceof Frame reply) {
        assertThat(RemoveMatchingReply.decode(reply.reader()))
            .isEqualTo(new RemoveMatchingReply(0, 0, true));
      } else {
        assertThat(matching).as("REMOVE_MATCHING").isEqualTo(ErrorCode.RECOVERING);
      }
      walked.add(Opcode.REMOVE_MATCHING);
      w = new BodyWriter();
      new PinRequest("missing", true).encode(w);
      assertThat(StatusList.decode(((Frame) exchange(client, Opcode.PIN, w)).reader()).statuses())
          .hasSize(1);
      walked.add(Opcode.PIN);
      StatsReply stats =
          StatsReply.decode(
              ((Frame) exchange(client, Opcode.STATS, null)).reader(), VersionInfo.PROTOCOL_MINOR);
      assertThat(stats.aliveNodes()).isEqualTo(2);
      walked.add(Opcode.STATS);

      w = new BodyWriter();
      new WriteRequest("k", 1, new Slice(0, 0, 16, 0), 16, 0, 1, Long.MAX_VALUE, new byte[16])
          .encode(w);
      try (RpcConnection.Deadline d = toNode.deadline(T)) {
        toNode.call(Opcode.WRITE, w, ByteBuffer.allocateDirect(16));
        throw new AssertionError("a WRITE without a grant was accepted");
      } catch (RemoteErrorException e) {
        assertThat(e.code()).isEqualTo(ErrorCode.GRANT_REJECTED);
      }
      walked.add(Opcode.WRITE);
      w = new BodyWriter();
      new ReadRequest("k", 1, 0, 0, 16, Long.MAX_VALUE, new byte[16]).encode(w);
      assertThat(exchange(toNode, Opcode.READ, w)).isEqualTo(ErrorCode.TOKEN_REJECTED);
      walked.add(Opcode.READ);
      w = new BodyWriter();
      new ReadBatchRequest(List.of(new ReadRequest("k", 1, 0, 0, 16, Long.MAX_VALUE, new byte[16])))
          .encode(w);
      assertThat(
              ReadBatchReply.decode(((Frame) exchange(toNode, Opcode.READ_BATCH, w)).reader())
                  .results())
          .extracting(ReadBatchReply.Result::status)
          .containsExactly(ErrorCode.TOKEN_REJECTED);
      walked.add(Opcode.READ_BATCH);
      w = new BodyWriter();
      new ReadObjectRequest("k", 1, Long.MAX_VALUE, new byte[16]).encode(w);
      assertThat(exchange(toNode, Opcode.READ_OBJECT, w)).isEqualTo(ErrorCode.TOKEN_REJECTED);
      walked.add(Opcode.READ_OBJECT);
      w = new BodyWriter();
      new WriteBatchRequest(
              List.of(
                  new WriteRequest(
                      "k", 1, new Slice(0, 0, 16, 0), 16, 0, 1, Long.MAX_VALUE, new byte[16])))
          .encode(w);
      try (RpcConnection.Deadline d = toNode.deadline(T)) {
        assertThat(
                WriteBatchReply.decode(
                        toNode.call(Opcode.WRITE_BATCH, w, ByteBuffer.allocateDirect(16)).reader(),
                        toNode.agreedMinor())
                    .results())
            .extracting(WriteBatchReply.Result::status)
            .containsExactly(ErrorCode.GRANT_REJECTED);
      }
      walked.add(Opcode.WRITE_BATCH);
      w = new BodyWriter();
      new ReplicateRequest(
              "k",
              1,
              16,
              0,
              1,
              List.of(new Slice(0, 0, 16, 0)),
              Long.MAX_VALUE,
              new ReplicaGrant("x", "127.0.0.1:1", List.of()))
          .encode(w);
      assertThat(exchange(toNode, Opcode.REPLICATE, w))
          .as("REPLICATE from a client")
          .isEqualTo(ErrorCode.MALFORMED_REQUEST);
      walked.add(Opcode.REPLICATE);
      w = new BodyWriter();
      new ReleaseRequest(List.of(new Release("k", 1, true))).encode(w, toNode.agreedMinor());
      assertThat(exchange(toNode, Opcode.RELEASE, w))
          .as("RELEASE from a client")
          .isEqualTo(ErrorCode.MALFORMED_REQUEST);
      walked.add(Opcode.RELEASE);

      // extents (protocol 2.4)
      w = new BodyWriter();
      new ExtentGrantRequest(64 << 10, List.of()).encode(w);
      ExtentGrantReply granted =
          ExtentGrantReply.decode(((Frame) exchange(client, Opcode.EXTENT_GRANT, w)).reader());
      assertThat(granted.status()).as(granted.message()).isEqualTo(ErrorCode.OK);
      assertThat(granted.extent().length()).isEqualTo(64 << 10);
      walked.add(Opcode.EXTENT_GRANT);
      w = new BodyWriter();
      Extent e = granted.extent();
      new ExtentWriteRequest(
              new Extent(
                  e.firstGeneration(),
                  e.generations(),
                  e.segmentId(),
                  e.offset(),
                  e.length(),
                  e.expiresAtMillis(),
                  new byte[16]),
              "k",
              e.firstGeneration(),
              0,
              16,
              0)
          .encode(w);
      try (RpcConnection.Deadline d = toNode.deadline(T)) {
        toNode.call(Opcode.EXTENT_WRITE, w, ByteBuffer.allocateDirect(16));
        throw new AssertionError("an EXTENT_WRITE with a forged token was accepted");
      } catch (RemoteErrorException x) {
        assertThat(x.code()).isEqualTo(ErrorCode.GRANT_REJECTED);
      }
      walked.add(Opcode.EXTENT_WRITE);
      w = new BodyWriter();
      new ExtentCommit("nobody", new byte[16], List.of()).encode(w);
      assertThat(exchange(client, Opcode.EXTENT_COMMIT, w))
          .as("EXTENT_COMMIT from a client")
          .isEqualTo(ErrorCode.MALFORMED_REQUEST);
      assertThat(exchange(storage, Opcode.EXTENT_COMMIT, w))
          .as("EXTENT_COMMIT of a registration the master does not serve")
          .isEqualTo(ErrorCode.UNKNOWN_NODE);
      walked.add(Opcode.EXTENT_COMMIT);
      w = new BodyWriter();
      new ExtentReturn(List.of(e.firstGeneration(), 7L)).encode(w);
      assertThat(
              StatusList.decode(((Frame) exchange(client, Opcode.EXTENT_RETURN, w)).reader())
                  .statuses())
          .containsExactly(ErrorCode.OK, ErrorCode.NOT_FOUND);
      walked.add(Opcode.EXTENT_RETURN);

      // served by the other role only, and unknown opcodes: refused, the connection stays open
      assertThat(exchange(client, Opcode.READ, w)).isEqualTo(ErrorCode.UNKNOWN_OPCODE);
      assertThat(exchange(toNode, Opcode.STATS, null)).isEqualTo(ErrorCode.UNKNOWN_OPCODE);
      assertThat(((Frame) exchange(client, Opcode.PING, null)).body().remaining()).isZero();
    }
    List<Opcode> notWalked = new ArrayList<>(EnumSet.complementOf(EnumSet.copyOf(walked)));
    notWalked.remove(
        Opcode.AUTH); // pools without secrets answer auth=0 and never take AUTH (AuthIT covers it)
    assertThat(notWalked).as("documented opcodes this test did not exercise").isEmpty();
  }
}
