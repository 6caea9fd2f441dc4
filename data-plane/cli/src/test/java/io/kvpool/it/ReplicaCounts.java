package io.kvpool.it;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.ErrorReply;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolException;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.ReplicaListResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Asks the master (GET_REPLICAS, as PROTOCOL.md defines it) how many complete replicas each key
 * has.
 */
public final class ReplicaCounts {

  private static final int BATCH = 1000;

  private ReplicaCounts() {}

  /** Key to replica count; 0 for a key the master does not know. */
  public static Map<String, Integer> query(String masterAddress, String poolId, List<String> keys) {
    Map<String, Integer> counts = new HashMap<>();
    try (RawConnection connection = new RawConnection(HostPort.parse(masterAddress), 10_000)) {
      Frame hello = connection.handshake(VersionInfo.CURRENT, poolId);
      if (hello.header().isError()) {
        throw new AssertionError("master refused the handshake of the replica-count query");
      }
      for (int from = 0; from < keys.size(); from += BATCH) {
        List<String> batch = keys.subList(from, Math.min(keys.size(), from + BATCH));
        BodyWriter body = new BodyWriter();
        new KeyList(batch).encode(body);
        connection.sendRequest(Opcode.GET_REPLICAS, body);
        Frame reply =
            connection
                .readFrame()
                .orElseThrow(() -> new AssertionError("master closed the connection"));
        if (reply.header().isError()) {
          throw new AssertionError("GET_REPLICAS failed: " + ErrorReply.decode(reply.reader()));
        }
        List<ReplicaListResult> results = ReplicaListReply.decode(reply.reader()).results();
        for (int i = 0; i < batch.size(); i++) {
          ReplicaListResult result = results.get(i);
          counts.put(batch.get(i), result.status() == ErrorCode.OK ? result.replicas().size() : 0);
        }
      }
    } catch (ProtocolException e) {
      throw new AssertionError("master sent a malformed GET_REPLICAS reply: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException("replica-count query to " + masterAddress + " failed", e);
    }
    return counts;
  }
}
