package io.kvpool.storage;

import io.kvpool.common.HostPort;
import io.kvpool.common.MetricsRegistry;
import io.kvpool.common.VersionInfo;
import io.kvpool.nativemem.NativeSegment;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.GrantSigner;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.InventoryEntry;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ReadReply;
import io.kvpool.protocol.ReadRequest;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicateRequest;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.RpcServer;
import io.kvpool.protocol.Session;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.protocol.WriteRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.CRC32C;
import java.util.function.Supplier;

/**
 * Serves WRITE, READ and REPLICATE. Value bytes move between the socket and views of native memory; nothing is
 * written before the request decoded and its range and grant checked.
 */
final class StorageRequestHandler implements RpcServer.RequestHandler {
  private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);
  private static final Duration COPY_TIMEOUT = Duration.ofSeconds(30);

  private final String nodeId;
  private final List<NativeSegment> segments;
  private final ObjectInventory inventory;
  private final Supplier<GrantSigner> signer;
  private final Supplier<String> poolId;
  private final MetricsRegistry.Counter writes;
  private final MetricsRegistry.Counter writeBytes;
  private final MetricsRegistry.Counter reads;
  private final MetricsRegistry.Counter readBytes;
  private final MetricsRegistry.Counter rejected;

  StorageRequestHandler(String nodeId, List<NativeSegment> segments, ObjectInventory inventory,
                        Supplier<GrantSigner> signer, Supplier<String> poolId, MetricsRegistry metrics) {
    this.nodeId = nodeId;
    this.segments = segments;
    this.inventory = inventory;
    this.signer = signer;
    this.poolId = poolId;
    this.writes = metrics.counter("kvpool_storage_writes_total", "Replica writes applied");
    this.writeBytes = metrics.counter("kvpool_storage_write_bytes_total", "Bytes written into segments");
    this.reads = metrics.counter("kvpool_storage_reads_total", "Replica reads served");
    this.readBytes = metrics.counter("kvpool_storage_read_bytes_total", "Bytes read from segments");
    this.rejected = metrics.counter("kvpool_storage_rejected_total", "Reads and writes refused (bounds or grant)");
  }

  @Override
  public void handle(Session session, Frame request) throws IOException {
    switch (request.opcode()) {
      case PING -> {
        request.reader().finish();
        session.reply(request, null);
      }
      case WRITE -> write(session, request);
      case READ -> read(session, request);
      case REPLICATE -> replicate(session, request);
      default -> session.replyError(request, ErrorCode.UNKNOWN_OPCODE,
          request.opcode() + " is not served by a storage node");
    }
  }

  /** Null if the range lies inside a segment, else why not. */
  private String outOfBounds(int segmentId, long offset, long length) {
    if (segmentId >= segments.size()) {
      return "segment " + segmentId + " does not exist on node " + nodeId + " (it has " + segments.size() + ")";
    }
    long size = segments.get(segmentId).size();
    if (offset > size || length > size - offset) {
      return "range [" + offset + ", " + (offset + length) + ") exceeds segment " + segmentId + " of " + size + " bytes";
    }
    return null;
  }

  private void write(Session session, Frame request) throws IOException {
    WriteRequest w = WriteRequest.decode(request.reader());
    String problem = outOfBounds(w.segmentId(), w.offset(), w.length());
    ErrorCode code = ErrorCode.OUT_OF_BOUNDS;
    if (problem == null) {
      code = ErrorCode.GRANT_REJECTED;
      GrantSigner s = signer.get();
      if (s == null) {
        problem = "node " + nodeId + " is not registered with a master yet";
      } else if (w.expiresAtMillis() < System.currentTimeMillis()) {
        problem = "write grant for key " + w.key() + " expired; start the put again";
      } else if (!s.verify(w.key(), w.segmentId(), w.offset(), w.length(), w.expiresAtMillis(), w.token())) {
        problem = "write grant for key " + w.key() + " does not match segment " + w.segmentId() + " offset "
            + w.offset() + " length " + w.length() + " (not allocated by the current master)";
      }
    }
    if (problem != null) {
      rejected.inc();
      // consume the payload so the connection stays usable for the client's next request
      session.channel().skipPayload(w.length());
      session.replyError(request, code, problem);
      return;
    }
    if (w.length() > 0) {
      session.channel().readPayload(segments.get(w.segmentId()).view(w.offset(), w.length()));
    }
    inventory.record(new InventoryEntry(w.key(), w.segmentId(), w.offset(), w.length(), w.valueOffset(), w.valueSize(),
        w.checksum()));
    writes.inc();
    writeBytes.add(w.length());
    session.reply(request, null);
  }

  private void read(Session session, Frame request) throws IOException {
    ReadRequest r = ReadRequest.decode(request.reader());
    String problem = outOfBounds(r.segmentId(), r.offset(), r.length());
    if (problem != null) {
      rejected.inc();
      session.replyError(request, ErrorCode.OUT_OF_BOUNDS, problem);
      return;
    }
    BodyWriter out = new BodyWriter(8);
    new ReadReply(r.length()).encode(out);
    ByteBuffer view = r.length() == 0 ? EMPTY.duplicate() : segments.get(r.segmentId()).view(r.offset(), r.length());
    session.reply(request, out, view);
    reads.inc();
    readBytes.add(r.length());
  }

  private void replicate(Session session, Frame request) throws IOException {
    ReplicateRequest r = ReplicateRequest.decode(request.reader());
    List<Slice> source = new ArrayList<>(r.source());
    source.sort(Comparator.comparingInt(Slice::valueOffset));
    long covered = 0;
    CRC32C crc = new CRC32C();
    for (Slice s : source) {
      String problem = outOfBounds(s.segmentId(), s.offset(), s.length());
      if (problem != null || s.valueOffset() != covered) {
        session.replyError(request, ErrorCode.OUT_OF_BOUNDS, problem != null ? problem
            : "source slices of key " + r.key() + " do not cover the value contiguously");
        return;
      }
      crc.update(view(s, 0, s.length()));
      covered += s.length();
    }
    if (covered != r.size() || (int) crc.getValue() != r.checksum()) {
      session.replyError(request, ErrorCode.CHECKSUM_MISMATCH, "replica of key " + r.key() + " on node " + nodeId
          + " does not match its size or checksum; not copying a corrupt value");
      return;
    }
    ReplicaGrant target = r.target();
    Handshake me = new Handshake(VersionInfo.CURRENT, Role.STORAGE, poolId.get(), nodeId);
    try (RpcConnection c = RpcConnection.open(HostPort.parse(target.endpoint()), me, COPY_TIMEOUT);
         RpcConnection.Deadline d = c.deadline(COPY_TIMEOUT)) {
      for (SliceGrant g : target.slices()) {
        BodyWriter w = new BodyWriter();
        WriteRequest.of(r.key(), target, g, r.size(), r.checksum()).encode(w);
        c.call(Opcode.WRITE, w, views(source, g.valueOffset(), g.length()));
      }
    } catch (RemoteErrorException e) {
      session.replyError(request, e.code(), "target " + target.nodeId() + " refused the copy: " + e.remoteMessage());
      return;
    } catch (IOException e) {
      session.replyError(request, ErrorCode.NODE_UNAVAILABLE, "cannot copy key " + r.key() + " to node "
          + target.nodeId() + " at " + target.endpoint() + ": " + e.getMessage());
      return;
    }
    session.reply(request, null);
  }

  private ByteBuffer view(Slice s, int from, int length) {
    return length == 0 ? EMPTY.duplicate() : segments.get(s.segmentId()).view(s.offset() + from, length);
  }

  /** Views of the value's bytes [valueOffset, valueOffset + length) across the source slices (sorted, contiguous). */
  private ByteBuffer[] views(List<Slice> source, int valueOffset, int length) {
    List<ByteBuffer> out = new ArrayList<>();
    int end = valueOffset + length;
    for (Slice s : source) {
      int from = Math.max(valueOffset, s.valueOffset());
      int to = Math.min(end, s.valueOffset() + s.length());
      if (from < to) {
        out.add(view(s, from - s.valueOffset(), to - from));
      }
    }
    return out.toArray(new ByteBuffer[0]);
  }
}
