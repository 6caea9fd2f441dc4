package io.kvpool.storage;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.nativemem.NativeSegment;
import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.ExtentCommit;
import io.kvpool.protocol.ExtentGrantRequest;
import io.kvpool.protocol.ExtentWriteRequest;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.IdleConnections;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PayloadPart;
import io.kvpool.protocol.ProtocolException;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.ReadBatchReply;
import io.kvpool.protocol.ReadBatchRequest;
import io.kvpool.protocol.ReadObjectRequest;
import io.kvpool.protocol.ReadReply;
import io.kvpool.protocol.ReadRequest;
import io.kvpool.protocol.ReceiptReply;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.ReleaseRequest;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicateRequest;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.protocol.WriteBatchReply;
import io.kvpool.protocol.WriteBatchRequest;
import io.kvpool.protocol.WriteReply;
import io.kvpool.protocol.WriteRequest;
import io.kvpool.rpc.RateLimitedLog;
import io.kvpool.rpc.RpcServer;
import io.kvpool.rpc.Session;
import io.kvpool.security.NodeKey;
import io.kvpool.storage.ObjectInventory.ObjectId;
import io.kvpool.storage.disk.DiskTier;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves WRITE, READ and REPLICATE. Value bytes move between the socket and views of native memory.
 * A WRITE is admitted only with the master's grant for that object and range, and not for a deleted
 * or already complete object; once the object's bytes are all here their CRC32C is checked and the
 * node returns its receipt. A READ is served only with the master's read token for that object,
 * inside a slice of that object, and its reply pins the slice ({@link ReadPin}): a reply whose
 * object goes while it is sent is stopped, and a WRITE into its range waits for it, so a reply
 * never carries another object's bytes. Lengths are checked here, not by decoding, so that a
 * request with a negative or oversized one gets an error reply (PROTOCOL.md, "To a storage node").
 */
final class StorageRequestHandler implements RpcServer.RequestHandler {
  private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);
  private static final byte[] NO_RECEIPT = new byte[0];
  private static final Duration COPY_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration COPY_CONNECTION_IDLE = Duration.ofSeconds(5);

  /**
   * How long a WRITE waits for replies still sending its range's previous object. They are stopped
   * when it is dropped, so they let go within moments; the bound only keeps a worker from waiting
   * for ever.
   */
  static final Duration PIN_WAIT = Duration.ofSeconds(10);

  private static final Logger LOG = LoggerFactory.getLogger(StorageRequestHandler.class);
  private static final RateLimitedLog ABORTED = new RateLimitedLog(LOG, 5_000);

  private final String nodeId;
  private final List<NativeSegment> segments;

  /** The segments' memory files that large replies are sent from; null: every reply is copied. */
  private final SegmentFiles files;

  private final ObjectInventory inventory;
  private final MasterLink link;
  private final Counter writes;
  private final Counter writeBytes;
  private final Counter reads;
  private final Counter readBytes;
  private final Counter refused;
  private final Counter repliesAborted;
  private final Counter repliesFromFiles;
  private final ReplicaCommits commits;
  private final ExtentCommits extentCommits;

  /** The disk tier's side of this node; null without a tier. */
  private final DiskSpill disk;

  /**
   * Requests using segment memory now, and outbound copy connections: waited for or closed before
   * unmapping.
   */
  private final InFlight inFlight = new InFlight();

  /**
   * Connections to other nodes for copies, kept for reuse a few seconds (as many per target as the
   * master runs copies at once): a repair wave does not handshake per value, and a quiet node holds
   * no extra descriptors.
   */
  private final IdleConnections copyConnections = new IdleConnections(4, COPY_CONNECTION_IDLE);

  StorageRequestHandler(
      String nodeId,
      List<NativeSegment> segments,
      SegmentFiles files,
      ObjectInventory inventory,
      MasterLink link,
      PrometheusRegistry metrics,
      DiskSpill disk) {
    this.disk = disk;
    this.nodeId = nodeId;
    this.segments = segments;
    this.files = files;
    this.inventory = inventory;
    this.link = link;
    this.writes = counter(metrics, "kvpool_storage_writes_total", "Replica slices written");
    this.writeBytes =
        counter(metrics, "kvpool_storage_write_bytes_total", "Bytes written into segments");
    this.reads = counter(metrics, "kvpool_storage_reads_total", "Reads served");
    this.readBytes =
        counter(metrics, "kvpool_storage_read_bytes_total", "Bytes read from segments");
    this.refused =
        Counter.builder()
            .name("kvpool_storage_refused_total")
            .help("Reads and writes refused, by reason")
            .labelNames("reason")
            .register(metrics);
    this.repliesFromFiles =
        counter(
            metrics,
            "kvpool_storage_replies_from_files_total",
            "READ, READ_BATCH and READ_OBJECT replies started whose bytes the kernel sends from the"
                + " segments' memory files or the disk tier's files (sendfile) instead of copying"
                + " them");
    this.repliesAborted =
        counter(
            metrics,
            "kvpool_storage_replies_aborted_total",
            "READ and READ_BATCH replies stopped mid-send because an object they read was released or overwritten");
    this.commits = new ReplicaCommits(link, metrics);
    this.extentCommits = new ExtentCommits(link);
    CounterWithCallback.builder()
        .name("kvpool_storage_extent_writes_cut_total")
        .help(
            "Writes into extents (protocol 2.4) cut while receiving their value: the extent expired, or the node"
                + " began to register again")
        .callback(cb -> cb.call(link.extents().cutCount()))
        .register(metrics);
  }

  private static Counter counter(PrometheusRegistry r, String name, String help) {
    return Counter.builder().name(name).help(help).register(r);
  }

  @Override
  public void handle(Session session, Frame request) throws IOException {
    if (!inFlight.enter()) {
      session.replyError(
          request, ErrorCode.NODE_UNAVAILABLE, "node " + nodeId + " is shutting down");
      return;
    }
    try {
      serve(session, request);
    } finally {
      inFlight.exit();
    }
  }

  /**
   * Stops admitting requests, cuts outbound copies, and waits for requests using segment memory to
   * finish.
   */
  boolean quiesce(Duration timeout) throws InterruptedException {
    copyConnections.close();
    boolean quiet = inFlight.closeAndAwait(timeout);
    extentCommits.close();
    return quiet;
  }

  private void serve(Session session, Frame request) throws IOException {
    switch (request.opcode()) {
      case PING -> {
        request.reader().finish();
        session.reply(request, null);
      }
      case WRITE -> write(session, request);
      case READ -> read(session, request);
      case READ_BATCH -> readBatch(session, request);
      case WRITE_BATCH -> writeBatch(session, request);
      case REPLICATE -> replicate(session, request);
      case READ_OBJECT -> readObject(session, request);
      case EXTENT_WRITE -> extentWrite(session, request);
      case RELEASE -> release(session, request);
      default ->
          session.replyError(
              request,
              ErrorCode.UNKNOWN_OPCODE,
              request.opcode() + " is not served by a storage node");
    }
  }

  /** Null if the range lies inside a segment, else why not. */
  private String outOfBounds(int segmentId, long offset, long length) {
    if (segmentId < 0 || offset < 0 || length < 0) {
      return "segment "
          + segmentId
          + ", offset "
          + offset
          + " and length "
          + length
          + " must not be negative";
    }
    if (segmentId >= segments.size()) {
      return "segment "
          + segmentId
          + " does not exist on node "
          + nodeId
          + " (it has "
          + segments.size()
          + ")";
    }
    long size = segments.get(segmentId).size();
    if (offset > size || length > size - offset) {
      return "range ["
          + offset
          + ", "
          + (offset + length)
          + ") exceeds segment "
          + segmentId
          + " of "
          + size
          + " bytes";
    }
    return null;
  }

  /**
   * Whether a WRITE may proceed: refused with a code and why, or admitted (its range now reserved
   * for it) under the registration whose key verified its grant.
   */
  private record Admission(ErrorCode code, String problem, NodeKey key) {}

  private Admission admit(WriteRequest w) {
    Slice slice = w.slice();
    ErrorCode code = ErrorCode.LIMIT_EXCEEDED;
    String problem =
        w.valueSize() < 0 || w.valueSize() > ProtocolLimits.MAX_VALUE_BYTES
            ? "value size " + w.valueSize() + " outside 0.." + ProtocolLimits.MAX_VALUE_BYTES
            : null;
    if (problem == null) {
      code = ErrorCode.OUT_OF_BOUNDS;
      problem =
          slice.valueOffset() < 0 || (long) slice.valueOffset() + slice.length() > w.valueSize()
              ? "slice ["
                  + slice.valueOffset()
                  + ", +"
                  + slice.length()
                  + ") lies outside the value of "
                  + w.valueSize()
                  + " bytes"
              : outOfBounds(slice.segmentId(), slice.offset(), slice.length());
    }
    if (problem == null && w.metadata() != null) {
      code = ErrorCode.LIMIT_EXCEEDED;
      problem = w.metadata().limitProblem();
    }
    NodeKey key = link.nodeKey();
    if (problem == null) {
      code = ErrorCode.GRANT_REJECTED;
      if (key == null) {
        problem = "node " + nodeId + " is not registered with a master";
      } else if (w.expiresAtMillis() < link.masterNow()) {
        problem = "write grant for key " + w.key() + " expired; start the put again";
      } else if (!NodeKey.matches(
          key.writeGrant(
              w.key(),
              w.generation(),
              slice,
              w.valueSize(),
              w.checksum(),
              w.replicas(),
              w.expiresAtMillis()),
          w.token())) {
        problem =
            "write grant for key "
                + w.key()
                + " does not match this object and range (not allocated by the"
                + " master this node follows)";
      } else {
        List<InventoryObject> displaced = disk == null ? null : new ArrayList<>(0);
        long now = System.currentTimeMillis();
        problem =
            inventory.admitWrite(
                new ObjectId(w.key(), w.generation()),
                slice,
                w.valueSize(),
                w.checksum(),
                w.replicas(),
                w.expiresAtMillis(),
                now,
                displaced,
                w.metadata());
        if (displaced != null && !displaced.isEmpty()) {
          disk.displaced(displaced, now); // on disk before this write's bytes take their range
        }
        if (problem == null && !awaitUnpinned(slice)) {
          inventory.discardIncomplete(new ObjectId(w.key(), w.generation()));
          code = ErrorCode.NODE_UNAVAILABLE;
          problem =
              "node "
                  + nodeId
                  + " is still stopping a reply that reads, or spilling the replica that held, range ["
                  + slice.offset()
                  + ", "
                  + slice.end()
                  + ") of segment "
                  + slice.segmentId()
                  + "; start the put again";
        }
      }
    }
    if (problem != null) {
      refused
          .labelValues(
              switch (code) {
                case OUT_OF_BOUNDS -> "out_of_bounds";
                case LIMIT_EXCEEDED -> "limit";
                case NODE_UNAVAILABLE -> "pinned";
                default -> "grant";
              })
          .inc();
    }
    return new Admission(code, problem, key);
  }

  /**
   * Waits until no reply sends from the slice's range (those that do are stopped); false after
   * {@link #PIN_WAIT}.
   */
  private boolean awaitUnpinned(Slice slice) {
    try {
      return inventory.awaitUnpinned(slice, PIN_WAIT.toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Why the WRITE's payload cannot even be skipped (its slice length is negative or over the value
   * limit, so where the next frame starts is unknown), or null.
   */
  private static String unskippable(WriteRequest w) {
    int length = w.slice().length();
    return length < 0 || length > ProtocolLimits.MAX_VALUE_BYTES
        ? "slice length "
            + length
            + " of key "
            + w.key()
            + " outside 0.."
            + ProtocolLimits.MAX_VALUE_BYTES
            + ": its payload cannot be skipped, so the connection closes"
        : null;
  }

  /**
   * Answers a request whose payload cannot be skipped with LIMIT_EXCEEDED, then ends the
   * connection.
   */
  private void refuseAndClose(Session session, Frame request, String problem) throws IOException {
    refused.labelValues("limit").inc();
    session.replyError(request, ErrorCode.LIMIT_EXCEEDED, problem);
    throw new ProtocolException(problem);
  }

  /**
   * Reads an admitted write's payload into its range; a cut-off or stalled payload never becomes
   * visible. When the write carries the whole value, its CRC32C is taken run by run as the bytes
   * land, while they are still in the CPU's caches, and returned; otherwise null (the value's
   * checksum is taken over its slices once they are all here).
   */
  private CRC32C receive(Session session, WriteRequest w) throws IOException {
    Slice slice = w.slice();
    CRC32C whole =
        slice.length() > 0 && slice.valueOffset() == 0 && slice.length() == w.valueSize()
            ? new CRC32C()
            : null;
    try {
      ByteBuffer range =
          slice.length() == 0
              ? null
              : segments.get(slice.segmentId()).view(slice.offset(), slice.length());
      if (whole != null) {
        session.readPayload(range, whole);
      } else if (range != null) {
        session.readPayload(range);
      }
    } catch (IOException | RuntimeException e) {
      inventory.discard(new ObjectId(w.key(), w.generation()));
      throw e;
    }
    writes.inc();
    writeBytes.inc(slice.length());
    return whole;
  }

  private String checksumProblem(WriteRequest w) {
    refused.labelValues("checksum").inc();
    return "the bytes of "
        + w.key()
        + " written to node "
        + nodeId
        + " do not match the value's CRC32C; start the"
        + " put again";
  }

  private void write(Session session, Frame request) throws IOException {
    WriteRequest w = WriteRequest.decode(request.reader(), session.agreedMinor());
    String unskippable = unskippable(w);
    if (unskippable != null) {
      refuseAndClose(session, request, unskippable);
    }
    Admission admission = admit(w);
    if (admission.problem() != null) {
      // consume the payload so the connection stays usable for the client's next request
      session.skipPayload(w.slice().length());
      session.replyError(request, admission.code(), admission.problem());
      return;
    }
    CRC32C landed = receive(session, w);
    byte[] receipt =
        verifyIfComplete(
            new ObjectId(w.key(), w.generation()), w.valueSize(), w.checksum(), landed);
    if (receipt == null) {
      session.replyError(request, ErrorCode.CHECKSUM_MISMATCH, checksumProblem(w));
      return;
    }
    boolean committed =
        receipt.length > 0
            && commitsFor(session)
            && commits
                .promise(List.of(new ReplicaCommits.Completed(w, receipt, admission.key())))[0];
    BodyWriter out = new BodyWriter(32);
    new WriteReply(receipt, committed).encode(out, session.agreedMinor());
    try {
      session.reply(request, out);
    } finally {
      if (committed) {
        commits.flush(); // after the reply: the COMMIT is off the writer's path
      }
    }
  }

  /**
   * EXTENT_WRITE (protocol 2.4): a whole small value into an extent the master granted the client.
   * Admitted as {@link ExtentWrites} allows (token, expiry, units and generation not taken before),
   * received into its range, CRC-checked, made part of the inventory, then committed at the master,
   * whose answer is the reply: OK (stored and visible), or its refusal (the value is discarded), or
   * NODE_UNAVAILABLE when the answer is unknown (the value stays; the next registration's inventory
   * decides, and the client asks the master with PUT_END).
   */
  private void extentWrite(Session session, Frame request) throws IOException {
    ExtentWriteRequest w = ExtentWriteRequest.decode(request.reader());
    if (w.valueSize() < 0 || w.valueSize() > ProtocolLimits.MAX_VALUE_BYTES) {
      refuseAndClose(
          session,
          request,
          "value size "
              + w.valueSize()
              + " of key "
              + w.key()
              + " outside 0.."
              + ProtocolLimits.MAX_VALUE_BYTES
              + ": its payload cannot be skipped, so the connection closes");
    }
    if (session.agreedMinor() < ExtentGrantRequest.MINOR) {
      session.skipPayload(w.valueSize());
      session.replyError(
          request,
          ErrorCode.UNKNOWN_OPCODE,
          "EXTENT_WRITE needs protocol 2." + ExtentGrantRequest.MINOR);
      return;
    }
    ExtentWrites extents = link.extents();
    MasterLink.Registration[] admittedUnder = new MasterLink.Registration[1];
    long extent = w.extent().firstGeneration();
    Slice slice = w.slice();
    ObjectId id = new ObjectId(w.key(), w.generation());
    String bounds =
        w.extent().length() < 0
            ? "extent length " + w.extent().length() + " is negative"
            : outOfBounds(w.extent().segmentId(), w.extent().offset(), w.extent().length());
    ExtentWrites.Refusal refusal =
        bounds != null
            ? new ExtentWrites.Refusal(ErrorCode.OUT_OF_BOUNDS, bounds)
            : extents.admit(w, link::registration, admittedUnder, session);
    MasterLink.Registration registration = admittedUnder[0];
    if (refusal == null) {
      List<InventoryObject> displaced = disk == null ? null : new ArrayList<>(0);
      long now = System.currentTimeMillis();
      String problem =
          inventory.admitWrite(
              id,
              slice,
              w.valueSize(),
              w.checksum(),
              1,
              w.extent().expiresAtMillis(),
              now,
              displaced,
              null);
      if (displaced != null && !displaced.isEmpty()) {
        disk.displaced(displaced, now);
      }
      if (problem == null && !awaitUnpinned(slice)) {
        inventory.discardIncomplete(id);
        problem =
            "node "
                + nodeId
                + " is still stopping a reply that reads, or spilling the replica that held, the"
                + " value's range";
        refusal = new ExtentWrites.Refusal(ErrorCode.NODE_UNAVAILABLE, problem);
      } else if (problem != null) {
        refusal = new ExtentWrites.Refusal(ErrorCode.GRANT_REJECTED, problem);
      }
      if (refusal != null) {
        extents.abandon(extent, session);
      }
    }
    if (refusal != null) {
      refused.labelValues("extent").inc();
      session.skipPayload(w.valueSize());
      session.replyError(request, refusal.code(), refusal.message());
      return;
    }
    WriteRequest asWrite =
        new WriteRequest(
            w.key(),
            w.generation(),
            slice,
            w.valueSize(),
            w.checksum(),
            1,
            w.extent().expiresAtMillis(),
            NO_RECEIPT);
    CRC32C landed;
    try {
      landed = receive(session, asWrite);
    } catch (IOException | RuntimeException e) {
      extents.abandon(extent, session);
      throw e;
    }
    if (landed == null) {
      landed = new CRC32C(); // an empty value
    }
    if ((int) landed.getValue() != w.checksum()) {
      inventory.discard(id);
      extents.abandon(extent, session);
      session.replyError(request, ErrorCode.CHECKSUM_MISMATCH, checksumProblem(asWrite));
      return;
    }
    ExtentWrites.Committing committing =
        extents.complete(
            extent, session, () -> inventory.completedBy(id) != null && inventory.markComplete(id));
    if (committing == null) {
      inventory.discard(id);
      session.replyError(
          request,
          ErrorCode.GRANT_REJECTED,
          "extent "
              + extent
              + " expired, or node "
              + nodeId
              + " registered again, before the value was complete");
      return;
    }
    ExtentCommits.Answer answer = null;
    boolean stands;
    try {
      answer =
          extentCommits.commit(
              registration.id(),
              new ExtentCommit.Item(
                  extent,
                  w.key(),
                  w.generation(),
                  slice.segmentId(),
                  slice.offset(),
                  w.valueSize(),
                  w.checksum(),
                  registration
                      .key()
                      .receipt(w.key(), w.generation(), w.valueSize(), w.checksum())));
    } finally {
      // the master did not take a refused value: nobody will read it, unless an inventory sent
      // while its answer was awaited holds it (then it stays, and its answer is unknown)
      ErrorCode status = answer == null ? null : answer.status();
      stands =
          extents.settle(
              committing, status != null && status != ErrorCode.OK, () -> inventory.discard(id));
    }
    if (answer.status() == ErrorCode.OK) {
      session.reply(request, new BodyWriter(0));
    } else if (answer.status() == null || !stands) {
      session.replyError(
          request,
          ErrorCode.NODE_UNAVAILABLE,
          "the master's answer to the commit of "
              + w.key()
              + " is unknown ("
              + (stands
                  ? answer.message()
                  : "node " + nodeId + " registered again while it was awaited")
              + "); ask the master with PUT_END");
    } else {
      session.replyError(
          request,
          answer.status(),
          "the master refused the value of " + w.key() + " into extent " + extent);
    }
  }

  /**
   * Whether this node commits the replicas it completes for the peer: clients that skip PUT_END for
   * them (2.2).
   */
  private static boolean commitsFor(Session session) {
    return session.peer().role() == Role.CLIENT && session.agreedMinor() >= WriteReply.COMMIT_MINOR;
  }

  /**
   * WRITE_BATCH: each write admitted (or refused) as a WRITE, its payload read into its range (or
   * skipped), in order; one reply with a result per write.
   */
  private void writeBatch(Session session, Frame request) throws IOException {
    WriteBatchRequest batch = WriteBatchRequest.decode(request.reader(), session.agreedMinor());
    for (WriteRequest w : batch.writes()) {
      String unskippable = unskippable(w);
      if (unskippable != null) {
        refuseAndClose(
            session,
            request,
            unskippable); // before any payload: the batch's stream cannot be followed
      }
    }
    List<WriteBatchReply.Result> results = new ArrayList<>(batch.writes().size());
    List<ObjectId> admitted = new ArrayList<>();
    List<ReplicaCommits.Completed> completed = new ArrayList<>();
    List<Integer> completedAt = new ArrayList<>();
    try {
      for (WriteRequest w : batch.writes()) {
        Admission admission = admit(w);
        if (admission.problem() != null) {
          session.skipPayload(w.slice().length());
          results.add(
              new WriteBatchReply.Result(admission.code(), admission.problem(), NO_RECEIPT, false));
          continue;
        }
        ObjectId id = new ObjectId(w.key(), w.generation());
        admitted.add(id);
        CRC32C landed = receive(session, w);
        byte[] receipt = verifyIfComplete(id, w.valueSize(), w.checksum(), landed);
        if (receipt != null && receipt.length > 0) {
          completed.add(new ReplicaCommits.Completed(w, receipt, admission.key()));
          completedAt.add(results.size());
        }
        results.add(
            receipt == null
                ? new WriteBatchReply.Result(
                    ErrorCode.CHECKSUM_MISMATCH, checksumProblem(w), NO_RECEIPT, false)
                : new WriteBatchReply.Result(ErrorCode.OK, "", receipt, false));
      }
    } catch (IOException | RuntimeException e) {
      for (ObjectId id : admitted) {
        inventory.discardIncomplete(
            id); // the rest of the batch never arrived: nothing half-written stays
      }
      throw e;
    }
    boolean promised = !completed.isEmpty() && commitsFor(session);
    if (promised) {
      boolean[] committed = commits.promise(completed);
      for (int i = 0; i < committed.length; i++) {
        WriteBatchReply.Result r = results.get(completedAt.get(i));
        results.set(
            completedAt.get(i),
            new WriteBatchReply.Result(r.status(), r.message(), r.receipt(), committed[i]));
      }
    }
    BodyWriter out = new BodyWriter(32 + 32 * results.size());
    new WriteBatchReply(results).encode(out, session.agreedMinor());
    try {
      session.reply(request, out);
    } finally {
      if (promised) {
        commits.flush();
      }
    }
  }

  /**
   * When the object's bytes are now all here: checks their CRC32C, records the replica complete and
   * returns the receipt (null on a mismatch, the slices discarded). Otherwise an empty receipt.
   * {@code landed} is the CRC32C taken as the whole value arrived in one slice, or null to take it
   * over the object's slices now.
   */
  private byte[] verifyIfComplete(ObjectId id, int size, int checksum, CRC32C landed) {
    List<Slice> slices = inventory.completedBy(id);
    if (slices == null) {
      return NO_RECEIPT;
    }
    CRC32C crc = landed;
    if (crc == null || slices.size() != 1) {
      crc = new CRC32C();
      for (Slice s : slices) {
        crc.update(view(s, 0, s.length()));
      }
    }
    if ((int) crc.getValue() != checksum) {
      inventory.discard(id);
      return null;
    }
    NodeKey key = link.nodeKey();
    if (!inventory.markComplete(id) || key == null) {
      return NO_RECEIPT; // released meanwhile: nothing to vouch for
    }
    return key.receipt(id.key(), id.generation(), size, checksum);
  }

  /**
   * Why a READ may not be served (null: it may, and {@code pin} now pins its slice); {@code code}
   * gets the error code.
   */
  private String readProblem(ReadRequest r, ReadPin pin, ErrorCode[] code) {
    if (r.length() > ProtocolLimits.MAX_VALUE_BYTES) {
      code[0] = ErrorCode.LIMIT_EXCEEDED;
      refused.labelValues("limit").inc();
      return "read length "
          + r.length()
          + " over the value limit of "
          + ProtocolLimits.MAX_VALUE_BYTES
          + " bytes";
    }
    String problem = outOfBounds(r.segmentId(), r.offset(), r.length());
    code[0] = ErrorCode.OUT_OF_BOUNDS;
    if (problem == null) {
      code[0] = ErrorCode.TOKEN_REJECTED;
      NodeKey key = link.nodeKey();
      if (key == null) {
        problem = "node " + nodeId + " is not registered with a master";
      } else if (r.expiresAtMillis() < link.masterNow()) {
        problem =
            "read token for key " + r.key() + " expired with its lease; get the replica list again";
      } else if (!NodeKey.matches(
          key.readToken(r.key(), r.generation(), r.expiresAtMillis()), r.token())) {
        problem =
            "read token for key "
                + r.key()
                + " does not match (not issued by the master this node follows)";
      } else if (!inventory.pin(
          pin, new ObjectId(r.key(), r.generation()), r.segmentId(), r.offset(), r.length())) {
        code[0] = ErrorCode.NOT_FOUND;
        problem =
            "node "
                + nodeId
                + " holds no replica of "
                + r.key()
                + " generation "
                + r.generation()
                + " at that range (released, evicted or overwritten)";
      }
    }
    if (problem != null) {
      refused
          .labelValues(
              code[0] == ErrorCode.NOT_FOUND
                  ? "not_held"
                  : code[0] == ErrorCode.OUT_OF_BOUNDS ? "out_of_bounds" : "token")
          .inc();
    }
    return problem;
  }

  private void read(Session session, Frame request) throws IOException {
    ReadRequest r = ReadRequest.decode(request.reader());
    ErrorCode[] code = new ErrorCode[1];
    ReadPin pin = pinFor(session);
    try {
      String problem = readProblem(r, pin, code);
      if (problem != null) {
        session.replyError(request, code[0], problem);
        return;
      }
      BodyWriter out = new BodyWriter(8);
      new ReadReply(r.length()).encode(out);
      send(
          session,
          request,
          out,
          pin,
          r.length() == 0 ? List.of() : List.of(new Range(r.segmentId(), r.offset(), r.length())));
    } finally {
      inventory.unpin(pin);
    }
    reads.inc();
    readBytes.inc(r.length());
  }

  /**
   * The pin of a reply on this session: revoked, it counts the reply as stopped and cuts the
   * connection (which does not block, as the inventory's lock is held).
   */
  private ReadPin pinFor(Session session) {
    return new ReadPin(stopper(session, "an object it sends was released or overwritten"));
  }

  /**
   * Stops a reply on this session that must not go on: counts and logs it, and cuts the connection
   * (without blocking).
   */
  private Runnable stopper(Session session, String reason) {
    return () -> {
      repliesAborted.inc();
      ABORTED.warn(
          "event=reply_aborted node={} peer={} reason=\"{}\"",
          nodeId,
          session.remoteAddress(),
          reason);
      session.abort();
    };
  }

  /** Bytes {@code [offset, offset + length)} of a segment that a reply sends. */
  private record Range(int segmentId, long offset, int length) {}

  /**
   * Sends a reply whose payload is read from pinned slices; a reply revoked before it starts is not
   * sent at all (its connection is being cut). Once it started, a revocation cuts the connection
   * under the send, which then fails. A large payload goes from the segments' memory files when
   * there are any and the connection is plaintext ({@link ReadServing#SENDFILE}); otherwise it is
   * copied from views of the segments.
   */
  private void send(
      Session session, Frame request, BodyWriter body, ReadPin pin, List<Range> payload)
      throws IOException {
    if (pin.revoked()) {
      throw new IOException(
          "reply stopped before it was sent: an object it reads was released or overwritten");
    }
    long bytes = 0;
    for (Range r : payload) {
      bytes += r.length();
    }
    if (files != null && bytes >= ReadServing.MIN_FILE_REPLY_BYTES && session.canSendFromFiles()) {
      List<PayloadPart> parts = new ArrayList<>(3 * payload.size());
      for (Range r : payload) {
        files.addParts(
            r.segmentId(),
            r.offset(),
            r.length(),
            segments.get(r.segmentId()).view(r.offset(), r.length()),
            parts);
      }
      inventory.sentFromFiles(pin);
      repliesFromFiles.inc();
      session.replyFromFiles(request, body, parts, payload.size());
      return;
    }
    ByteBuffer[] views = new ByteBuffer[payload.size()];
    for (int i = 0; i < views.length; i++) {
      Range r = payload.get(i);
      views[i] = segments.get(r.segmentId()).view(r.offset(), r.length());
    }
    session.reply(request, body, views);
  }

  /**
   * READ_BATCH: every read checked as a READ; one reply whose body lists the results and whose
   * payload is the served reads' bytes, sent from segment memory in one gathering write.
   */
  private void readBatch(Session session, Frame request) throws IOException {
    ReadBatchRequest batch = ReadBatchRequest.decode(request.reader());
    List<ReadBatchReply.Result> results = new ArrayList<>(batch.reads().size());
    List<Range> payload = new ArrayList<>(batch.reads().size());
    ErrorCode[] code = new ErrorCode[1];
    long bytes = 0;
    ReadPin pin = pinFor(session);
    try {
      for (ReadRequest r : batch.reads()) {
        String problem = readProblem(r, pin, code);
        if (problem != null) {
          results.add(new ReadBatchReply.Result(code[0], 0, problem));
        } else {
          results.add(ReadBatchReply.Result.ok(r.length()));
          if (r.length() > 0) {
            payload.add(new Range(r.segmentId(), r.offset(), r.length()));
          }
          bytes += r.length();
        }
      }
      BodyWriter out = new BodyWriter(16 + 16 * results.size());
      new ReadBatchReply(results).encode(out);
      send(session, request, out, pin, payload);
    } finally {
      inventory.unpin(pin);
    }
    reads.inc(payload.size());
    readBytes.inc(bytes);
  }

  /** The leader's releases of a REMOVE, applied as those of a heartbeat reply are. */
  private void release(Session session, Frame request) throws IOException {
    ReleaseRequest r = ReleaseRequest.decode(request.reader(), session.agreedMinor());
    if (session.peer().role() != Role.MASTER) {
      session.replyError(request, ErrorCode.MALFORMED_REQUEST, "only the master releases replicas");
      return;
    }
    if (session.peerView() < link.highestView()) {
      session.replyError(
          request,
          ErrorCode.STALE_VIEW,
          "master view "
              + session.peerView()
              + " is older than view "
              + link.highestView()
              + " this node follows; a deposed leader cannot release replicas");
      return;
    }
    long now = System.currentTimeMillis();
    for (Release x : r.releases()) {
      if (disk != null) {
        disk.release(x, now); // the disk record goes too
      } else {
        inventory.release(x, now);
      }
    }
    session.reply(request, new BodyWriter());
  }

  private void replicate(Session session, Frame request) throws IOException {
    ReplicateRequest r = ReplicateRequest.decode(request.reader());
    if (session.peer().role() != Role.MASTER) {
      session.replyError(
          request, ErrorCode.MALFORMED_REQUEST, "only the master asks for replica copies");
      return;
    }
    if (session.peerView() < link.highestView()) {
      session.replyError(
          request,
          ErrorCode.STALE_VIEW,
          "master view "
              + session.peerView()
              + " is older than view "
              + link.highestView()
              + " this node follows; a deposed leader cannot order copies");
      return;
    }
    if (r.source().isEmpty()) {
      replicateFromDisk(session, request, r);
      return;
    }
    InventoryObject held = inventory.replica(new ObjectId(r.key(), r.generation()));
    if (held == null || !held.slices().equals(r.source())) {
      session.replyError(
          request,
          ErrorCode.NOT_FOUND,
          "node "
              + nodeId
              + " holds no complete replica of "
              + r.key()
              + " generation "
              + r.generation()
              + " at the given slices");
      return;
    }
    List<Slice> source = new ArrayList<>(r.source());
    source.sort(Comparator.comparingInt(Slice::valueOffset));
    CRC32C crc = new CRC32C();
    for (Slice s : source) {
      crc.update(view(s, 0, s.length()));
    }
    copy(
        session,
        request,
        r,
        held.metadata(),
        crc,
        g -> views(source, g.slice().valueOffset(), g.slice().length()));
  }

  /**
   * REPLICATE of a disk replica (no source slices, protocol 2.3): staged from the tier, checked,
   * copied.
   */
  private void replicateFromDisk(Session session, Frame request, ReplicateRequest r)
      throws IOException {
    DiskTier.Staged staged;
    try {
      staged = disk == null ? null : disk.read(r.key(), r.generation());
    } catch (DiskTier.BusyException e) {
      session.replyError(request, ErrorCode.NODE_UNAVAILABLE, e.getMessage());
      return;
    }
    if (staged == null || staged.value().remaining() != r.size()) {
      if (staged != null) {
        staged.close();
      }
      session.replyError(
          request,
          ErrorCode.NOT_FOUND,
          "node "
              + nodeId
              + " holds no disk record of "
              + r.key()
              + " generation "
              + r.generation());
      return;
    }
    try (staged) {
      CRC32C crc = new CRC32C();
      crc.update(staged.value());
      copy(
          session,
          request,
          r,
          disk.metadataOf(new DiskTier.ObjectRef(r.key(), r.generation())),
          crc,
          g ->
              new ByteBuffer[] {staged.value().slice(g.slice().valueOffset(), g.slice().length())});
    }
  }

  /**
   * Copies a checked value to the REPLICATE's target, a WRITE per target slice, payloads from
   * {@code payload}; the object's block metadata (null: none) rides with the write of the first
   * slice to a target of protocol 2.5, so that the copy keeps it.
   */
  private void copy(
      Session session,
      Frame request,
      ReplicateRequest r,
      BlockMetadata metadata,
      CRC32C crc,
      java.util.function.Function<SliceGrant, ByteBuffer[]> payload)
      throws IOException {
    if ((int) crc.getValue() != r.checksum()) {
      session.replyError(
          request,
          ErrorCode.CHECKSUM_MISMATCH,
          "replica of key "
              + r.key()
              + " on node "
              + nodeId
              + " does not match its checksum; not copying a corrupt value");
      return;
    }
    ReplicaGrant target = r.target();
    Handshake me = new Handshake(VersionInfo.CURRENT, Role.STORAGE, link.poolId(), nodeId);
    byte[] receipt = NO_RECEIPT;
    RpcConnection c = null;
    try {
      c =
          copyConnections.borrow(
              target.endpoint(),
              () ->
                  RpcConnection.open(
                      HostPort.parse(target.endpoint()), me, 0, link.outbound(), COPY_TIMEOUT));
      inFlight.track(c);
      try (RpcConnection.Deadline d = c.deadline(COPY_TIMEOUT)) {
        for (SliceGrant g : target.slices()) {
          BodyWriter w = new BodyWriter();
          WriteRequest.of(
                  r.key(),
                  r.generation(),
                  g,
                  r.size(),
                  r.checksum(),
                  r.wantedReplicas(),
                  r.expiresAtMillis())
              .withMetadata(g.slice().valueOffset() == 0 ? metadata : null)
              .encode(w, c.agreedMinor());
          byte[] got =
              WriteReply.decode(c.call(Opcode.WRITE, w, payload.apply(g)).reader(), c.agreedMinor())
                  .receipt();
          if (got.length > 0) {
            receipt = got;
          }
        }
      }
    } catch (RemoteErrorException e) {
      session.replyError(
          request,
          e.code(),
          "target " + target.nodeId() + " refused the copy: " + e.remoteMessage());
      return;
    } catch (IOException e) {
      session.replyError(
          request,
          ErrorCode.NODE_UNAVAILABLE,
          "cannot copy key "
              + r.key()
              + " to node "
              + target.nodeId()
              + " at "
              + target.endpoint()
              + ": "
              + e.getMessage());
      return;
    } finally {
      if (c != null) {
        inFlight.untrack(c);
        copyConnections.release(target.endpoint(), c); // closed unless in step
      }
    }
    BodyWriter out = new BodyWriter(32);
    new ReceiptReply(receipt).encode(out);
    session.reply(request, out);
  }

  /**
   * READ_OBJECT (protocol 2.3): the whole value of an object, from its memory replica (its slices
   * pinned as READ's are) or from the disk tier (staged in native memory and CRC-checked first: a
   * record that fails is a miss).
   */
  private void readObject(Session session, Frame request) throws IOException {
    ReadObjectRequest r = ReadObjectRequest.decode(request.reader());
    String problem = tokenProblem(r.key(), r.generation(), r.expiresAtMillis(), r.token());
    if (problem != null) {
      refused.labelValues("token").inc();
      session.replyError(request, ErrorCode.TOKEN_REJECTED, problem);
      return;
    }
    ObjectId id = new ObjectId(r.key(), r.generation());
    InventoryObject held = inventory.replica(id);
    if (held != null) {
      ReadPin pin = pinFor(session);
      try {
        List<Slice> slices = new ArrayList<>(held.slices());
        slices.sort(Comparator.comparingInt(Slice::valueOffset));
        boolean pinned = true;
        for (Slice s : slices) {
          pinned &= inventory.pin(pin, id, s.segmentId(), s.offset(), s.length());
        }
        if (pinned) {
          BodyWriter out = new BodyWriter(8);
          new ReadReply(held.size()).encode(out);
          List<Range> payload = new ArrayList<>(slices.size());
          for (Slice s : slices) {
            payload.add(new Range(s.segmentId(), s.offset(), s.length()));
          }
          send(session, request, out, pin, payload);
          reads.inc();
          readBytes.inc(held.size());
          return;
        }
      } finally {
        inventory.unpin(pin);
      }
    }
    readObjectFromDisk(session, request, r);
  }

  /**
   * READ_OBJECT of a disk record: checked, then sent. A record of at least {@link
   * ReadServing#MIN_FILE_REPLY_BYTES} on a plaintext connection is checked where it lies and sent
   * by the kernel from the tier file's pages, stopped if the tier reclaims that file meanwhile; any
   * other is staged in native memory and sent from there (data-plane/README.md, "Disk tier").
   */
  private void readObjectFromDisk(Session session, Frame request, ReadObjectRequest r)
      throws IOException {
    DiskTier.Read found;
    try {
      if (disk == null) {
        found = null;
      } else if (session.canSendFromFiles()
          && disk.sizeOf(r.key(), r.generation()) >= ReadServing.MIN_FILE_REPLY_BYTES) {
        found =
            disk.check(
                r.key(),
                r.generation(),
                stopper(session, "the disk tier reclaimed the file it sends from"));
      } else {
        found = disk.read(r.key(), r.generation());
      }
    } catch (DiskTier.BusyException e) {
      session.replyError(request, ErrorCode.NODE_UNAVAILABLE, e.getMessage());
      return;
    }
    if (found == null) {
      notHeldOnDisk(session, request, r);
      return;
    }
    try (found) {
      BodyWriter out = new BodyWriter(8);
      new ReadReply(found.length()).encode(out);
      if (found instanceof DiskTier.Checked checked) {
        repliesFromFiles.inc();
        session.replyFromFiles(request, out, List.of(checked.region()), 1);
      } else {
        session.reply(request, out, ((DiskTier.Staged) found).value());
      }
      reads.inc();
      readBytes.inc(found.length());
    }
  }

  private void notHeldOnDisk(Session session, Frame request, ReadObjectRequest r)
      throws IOException {
    refused.labelValues("not_held").inc();
    session.replyError(
        request,
        ErrorCode.NOT_FOUND,
        "node "
            + nodeId
            + " holds no replica of "
            + r.key()
            + " generation "
            + r.generation()
            + " (released, evicted, or its disk record failed its checksum)");
  }

  /** Why a read token does not admit a read of the object now, or null. */
  private String tokenProblem(String key, long generation, long expiresAtMillis, byte[] token) {
    NodeKey nodeKey = link.nodeKey();
    if (nodeKey == null) {
      return "node " + nodeId + " is not registered with a master";
    }
    if (expiresAtMillis < link.masterNow()) {
      return "read token for key " + key + " expired with its lease; get the replica list again";
    }
    if (!NodeKey.matches(nodeKey.readToken(key, generation, expiresAtMillis), token)) {
      return "read token for key "
          + key
          + " does not match (not issued by the master this node follows)";
    }
    return null;
  }

  private ByteBuffer view(Slice s, int from, int length) {
    return length == 0
        ? EMPTY.duplicate()
        : segments.get(s.segmentId()).view(s.offset() + from, length);
  }

  /**
   * Views of the value's bytes [valueOffset, valueOffset + length) across the source slices
   * (sorted, contiguous).
   */
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
