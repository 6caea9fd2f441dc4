package io.kvpool.master;

import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.CountReply;
import io.kvpool.protocol.DiskDrop;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.ExtentCommit;
import io.kvpool.protocol.ExtentGrantRequest;
import io.kvpool.protocol.ExtentReturn;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.Heartbeat;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.NodeCommit;
import io.kvpool.protocol.PinRequest;
import io.kvpool.protocol.PutEndRequest;
import io.kvpool.protocol.PutRevokeRequest;
import io.kvpool.protocol.PutStartMetaRequest;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.RegisterInventory;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RemoveMatchingRequest;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.StatusList;
import io.kvpool.rpc.RpcServer;
import io.kvpool.rpc.Session;
import java.io.IOException;
import java.util.List;

/**
 * Decodes master requests, applies them to the leader's {@link PoolMetadata} and encodes the
 * replies.
 */
final class MasterRequestHandler implements RpcServer.RequestHandler {
  private final Master master;
  private final MatchingRemoval matchingRemoval;

  MasterRequestHandler(Master master) {
    this.master = master;
    this.matchingRemoval =
        new MatchingRemoval(
            (byNode, view) -> master.releasePusher().push(byNode, view),
            MatchingRemoval.MATCH_BUDGET,
            master.counters().removedByPattern);
  }

  @Override
  public void handle(Session session, Frame request) throws IOException {
    if (request.opcode() == io.kvpool.protocol.Opcode.PING) {
      request.reader().finish();
      session.reply(request, null);
      return;
    }
    if (request.opcode() == io.kvpool.protocol.Opcode.COMMIT) {
      commit(session, request);
      return;
    }
    if (request.opcode() == io.kvpool.protocol.Opcode.DISK_DROP) {
      diskDrop(session, request);
      return;
    }
    BodyWriter out = new BodyWriter();
    try {
      PoolMetadata metadata = master.metadataOrRefuse();
      switch (request.opcode()) {
        case REGISTER_NODE -> {
          requireStorage(session);
          metadata
              .register(
                  RegisterNode.decode(request.reader(), session.agreedMinor()),
                  session.peer().version(),
                  session,
                  session::isOpen)
              .encode(out);
        }
        case REGISTER_INVENTORY -> {
          requireStorage(session);
          metadata.inventory(RegisterInventory.decode(request.reader(), session.agreedMinor()));
        }
        case HEARTBEAT -> {
          requireStorage(session);
          metadata
              .heartbeat(Heartbeat.decode(request.reader(), session.agreedMinor()))
              .encode(out, session.agreedMinor());
        }
        case PUT_START ->
            new PutStartReply(
                    metadata.putStart(
                        PutStartRequest.decode(request.reader()).items(), session.agreedMinor()))
                .encode(out);
        case PUT_START_META -> {
          if (session.agreedMinor() < PutStartMetaRequest.MINOR) {
            throw new RefusedException(
                ErrorCode.UNKNOWN_OPCODE,
                "PUT_START_META needs protocol 2."
                    + PutStartMetaRequest.MINOR
                    + "; this connection agreed on 2."
                    + session.agreedMinor());
          }
          PutStartMetaRequest put = PutStartMetaRequest.decode(request.reader());
          new PutStartReply(metadata.putStart(put.items(), put.metadata(), session.agreedMinor()))
              .encode(out);
        }
        case EXTENT_GRANT -> {
          requireMinor(session, request);
          metadata
              .extentGrant(ExtentGrantRequest.decode(request.reader()), session.peer().peerId())
              .encode(out);
        }
        case EXTENT_RETURN -> {
          requireMinor(session, request);
          new StatusList(
                  metadata.extentReturn(
                      ExtentReturn.decode(request.reader()), session.peer().peerId()))
              .encode(out);
        }
        case EXTENT_COMMIT -> {
          requireMinor(session, request);
          requireStorage(session);
          new StatusList(metadata.extentCommit(ExtentCommit.decode(request.reader()))).encode(out);
        }
        case PUT_END ->
            new StatusList(metadata.putEnd(PutEndRequest.decode(request.reader()).items()))
                .encode(out);
        case PUT_REVOKE ->
            new StatusList(metadata.putRevoke(PutRevokeRequest.decode(request.reader()).puts()))
                .encode(out);
        case GET_REPLICAS ->
            new ReplicaListReply(
                    metadata.getReplicas(
                        KeyList.decode(request.reader()).keys(), session.agreedMinor()))
                .encode(out);
        case EXISTS ->
            new StatusList(metadata.exists(KeyList.decode(request.reader()).keys())).encode(out);
        case REMOVE -> {
          PoolMetadata.Removal removal = metadata.remove(KeyList.decode(request.reader()).keys());
          master.releasePusher().push(removal.releasesByNode(), metadata.view());
          new StatusList(removal.statuses()).encode(out);
        }
        case REMOVE_ALL -> {
          request.reader().finish();
          new CountReply(metadata.removeAll()).encode(out);
        }
        case REMOVE_MATCHING -> {
          if (session.agreedMinor() < RemoveMatchingRequest.MINOR) {
            throw new RefusedException(
                ErrorCode.UNKNOWN_OPCODE,
                "REMOVE_MATCHING needs protocol 2."
                    + RemoveMatchingRequest.MINOR
                    + "; this connection agreed on 2."
                    + session.agreedMinor());
          }
          matchingRemoval
              .serve(metadata, RemoveMatchingRequest.decode(request.reader()))
              .encode(out);
        }
        case PIN -> {
          PinRequest pin = PinRequest.decode(request.reader());
          new StatusList(List.of(metadata.pin(pin.key(), pin.pinned()))).encode(out);
        }
        case STATS -> {
          request.reader().finish();
          metadata.stats().encode(out, session.agreedMinor());
        }
        default ->
            throw new RefusedException(
                ErrorCode.UNKNOWN_OPCODE, request.opcode() + " is not served by the master");
      }
    } catch (RefusedException e) {
      session.replyError(request, e.code(), e.getMessage());
      return;
    }
    session.reply(request, out);
  }

  /**
   * A storage node's COMMIT is one-way: never answered, also when it does not count (a standby), so
   * that the node's heartbeat replies on the same connection stay in step; a node whose COMMIT did
   * not count re-proves its replicas with its inventory when it registers again. Any other role may
   * not send it and is told so, as for the other storage-only requests: it is not a node whose
   * replies would go out of step, and silence would leave it waiting.
   */
  private void commit(Session session, Frame request) throws IOException {
    if (session.peer().role() != Role.STORAGE) {
      session.replyError(
          request, ErrorCode.MALFORMED_REQUEST, "only storage nodes commit replicas");
      return;
    }
    NodeCommit commit = NodeCommit.decode(request.reader());
    PoolMetadata metadata = master.metadata();
    if (metadata == null) {
      master.counters().nodeCommits.labelValues("ignored").inc(commit.items().size());
      return;
    }
    metadata.nodeCommit(commit);
  }

  /** A storage node's DISK_DROP is one-way, as its COMMIT is; from another role it is refused. */
  private void diskDrop(Session session, Frame request) throws IOException {
    if (session.peer().role() != Role.STORAGE) {
      session.replyError(
          request, ErrorCode.MALFORMED_REQUEST, "only storage nodes report their disk tiers");
      return;
    }
    DiskDrop drop = DiskDrop.decode(request.reader());
    PoolMetadata metadata = master.metadata();
    if (metadata != null) {
      metadata.diskDrop(drop);
    }
  }

  /** Extents are protocol 2.4: an older peer's request for them is an opcode it does not know. */
  private static void requireMinor(Session session, Frame request) {
    if (session.agreedMinor() < ExtentGrantRequest.MINOR) {
      throw new RefusedException(
          ErrorCode.UNKNOWN_OPCODE,
          request.opcode()
              + " needs protocol 2."
              + ExtentGrantRequest.MINOR
              + "; this connection agreed on 2."
              + session.agreedMinor());
    }
  }

  private static void requireStorage(Session session) {
    if (session.peer().role() != Role.STORAGE) {
      throw new RefusedException(
          ErrorCode.MALFORMED_REQUEST, "only storage nodes register and heartbeat");
    }
  }
}
