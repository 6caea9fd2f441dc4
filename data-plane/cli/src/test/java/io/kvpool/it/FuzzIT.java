package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.AdminApi;
import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hostile bytes on the master's and the storage nodes' RPC ports: random bytes, truncated frames,
 * absurd lengths, bad flags, garbage bodies after a valid handshake, wrong handshakes and idle
 * connections. The processes keep serving, nothing stored changes, and none exits.
 */
class FuzzIT {

  private static final int ROUNDS_PER_PORT = 150;
  private static final int IDLE_CONNECTIONS_PER_PORT = 40;
  private static final int VALUES = 40;

  /** Requests that may legitimately delete data when their body happens to be well formed. */
  private static final List<Opcode> DESTRUCTIVE = List.of(Opcode.REMOVE_ALL, Opcode.REMOVE);

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(b -> b.storageNodes(3).memoryPerNode("128MiB"));

  @Test
  void hostileTrafficNeitherStopsProcessesNorChangesStoredValues() throws IOException {
    KvPoolClient client = pool.newClient("it-fuzz");
    SplittableRandom values = new SplittableRandom(11);
    List<String> keys = new ArrayList<>();
    long[] checksums = new long[VALUES];
    for (int i = 0; i < VALUES; i++) {
      ByteBuffer value = Values.random(1 + values.nextInt(256 << 10), values);
      checksums[i] = Values.crc(value);
      keys.add("it/fuzz/" + i);
      client.put(keys.get(i), value, 2);
    }

    List<HostPort> ports = new ArrayList<>();
    ports.add(HostPort.parse(pool.pool().leaderAddress()));
    pool.pool().storageNodes().forEach(n -> ports.add(HostPort.parse(n.rpcAddress())));
    Random random = new Random(4242);
    List<RawConnection> idle = new ArrayList<>();
    for (HostPort port : ports) {
      for (int i = 0; i < IDLE_CONNECTIONS_PER_PORT; i++) {
        idle.add(new RawConnection(port, 100));
      }
      for (int round = 0; round < ROUNDS_PER_PORT; round++) {
        fuzzOnce(port, random);
      }
    }
    for (RawConnection connection : idle) {
      connection.close();
    }

    assertThat(pool.pool().exitedProcesses()).isEmpty();
    assertThat(pool.masterAdmin().statusCode("/health")).isEqualTo(200);
    for (StorageNodeProcess node : pool.pool().storageNodes()) {
      assertThat(new AdminApi(node.adminAddress()).statusCode("/health"))
          .as("health of %s", node.id())
          .isEqualTo(200);
    }
    for (int i = 0; i < VALUES; i++) {
      assertThat(Values.crc(client.get(keys.get(i))))
          .as("bytes of %s", keys.get(i))
          .isEqualTo(checksums[i]);
    }
    ByteBuffer fresh = Values.random(100_000, values);
    client.put("it/fuzz/after", fresh, 2);
    assertThat(Values.crc(client.get("it/fuzz/after"))).isEqualTo(Values.crc(fresh));
  }

  private static void fuzzOnce(HostPort port, Random random) {
    int major = VersionInfo.CURRENT.protocolMajor();
    int minor = VersionInfo.CURRENT.protocolMinor();
    try (RawConnection connection = new RawConnection(port, 100)) {
      switch (random.nextInt(8)) {
        case 0 -> connection.sendBytes(bytes(random, random.nextInt(4096)));
        case 1 -> {
          // header announcing more body than is ever sent
          int declared = 16 + random.nextInt(10_000);
          ByteBuffer frame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + declared / 2);
          new FrameHeader(major, minor, randomOpcode(random), 0, 1, declared).encode(frame);
          frame.put(bytes(random, declared / 2));
          connection.sendBytes(frame.array());
        }
        case 2 -> {
          int[] absurd = {
            -1, ProtocolLimits.MAX_BODY_BYTES + 1, Integer.MAX_VALUE, Integer.MIN_VALUE
          };
          ByteBuffer header = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
          new FrameHeader(
                  major, minor, randomOpcode(random), 0, 1, absurd[random.nextInt(absurd.length)])
              .encode(header);
          connection.sendBytes(header.array());
          connection.sendBytes(bytes(random, random.nextInt(1024)));
        }
        case 3 -> {
          // a proper handshake, then well-framed requests whose bodies are garbage
          connection.handshake(VersionInfo.CURRENT, "");
          for (int i = 0; i < 3; i++) {
            connection.sendFrame(
                major,
                minor,
                randomOpcode(random),
                ByteBuffer.wrap(bytes(random, 1 + random.nextInt(512))));
          }
        }
        case 4 ->
            connection.sendFrame(
                major,
                minor,
                Opcode.HANDSHAKE.code(),
                ByteBuffer.wrap(bytes(random, random.nextInt(300))));
        case 5 ->
            connection.handshake(
                random.nextBoolean() ? new VersionInfo("9.0.0", 9, 0) : VersionInfo.CURRENT,
                "not-this-pool");
        case 6 ->
            connection.sendFrame(major, minor, Opcode.STATS.code(), new BodyWriter().toBuffer());
        default -> {
          // unknown flag bits and a non-zero reserved field
          ByteBuffer header = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
          header
              .putInt(FrameHeader.MAGIC)
              .put((byte) major)
              .put((byte) minor)
              .putShort((short) Opcode.PING.code())
              .putShort((short) (random.nextInt(0xffff) | 0x80))
              .putShort((short) random.nextInt(0xffff))
              .putLong(random.nextLong())
              .putInt(0);
          connection.sendBytes(header.array());
        }
      }
      if (random.nextInt(4) == 0) {
        connection.peerClosed();
      }
    } catch (IOException expected) {
      // the peer closed or reset the connection on the garbage: that is the required behaviour
    }
  }

  private static int randomOpcode(Random random) {
    if (random.nextInt(5) == 0) {
      return 64 + random.nextInt(0xffff - 64);
    }
    Opcode[] all = Opcode.values();
    Opcode opcode;
    do {
      opcode = all[random.nextInt(all.length)];
    } while (DESTRUCTIVE.contains(opcode));
    return opcode.code();
  }

  private static byte[] bytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }
}
