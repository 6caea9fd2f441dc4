package io.kvpool.master;

import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.CountReply;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.HeartbeatReply;
import io.kvpool.protocol.Heartbeat;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.PinRequest;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RegisterReply;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcServer;
import io.kvpool.protocol.Session;
import io.kvpool.protocol.StatusList;
import java.io.IOException;
import java.util.List;

/** Decodes master requests, applies them to {@link PoolMetadata} and encodes the replies. */
final class MasterRequestHandler implements RpcServer.RequestHandler {
  private final PoolMetadata metadata;

  MasterRequestHandler(PoolMetadata metadata) {
    this.metadata = metadata;
  }

  @Override
  public void handle(Session session, Frame request) throws IOException {
    BodyWriter out = new BodyWriter();
    switch (request.opcode()) {
      case PING -> request.reader().finish();
      case REGISTER_NODE -> {
        if (session.peer().role() != Role.STORAGE) {
          session.replyError(request, ErrorCode.MALFORMED_REQUEST, "only storage nodes register");
          return;
        }
        RegisterReply reply = metadata.register(RegisterNode.decode(request.reader()), session.peer().version());
        reply.encode(out);
      }
      case HEARTBEAT -> {
        HeartbeatReply reply = metadata.heartbeat(Heartbeat.decode(request.reader()).nodeId());
        reply.encode(out);
      }
      case PUT_START -> new PutStartReply(metadata.putStart(PutStartRequest.decode(request.reader()).items())).encode(out);
      case PUT_END -> new StatusList(metadata.putEnd(KeyList.decode(request.reader()).keys())).encode(out);
      case PUT_REVOKE -> new StatusList(metadata.putRevoke(KeyList.decode(request.reader()).keys())).encode(out);
      case GET_REPLICAS ->
          new ReplicaListReply(metadata.getReplicas(KeyList.decode(request.reader()).keys())).encode(out);
      case EXISTS -> new StatusList(metadata.exists(KeyList.decode(request.reader()).keys())).encode(out);
      case REMOVE -> new StatusList(metadata.remove(KeyList.decode(request.reader()).keys())).encode(out);
      case REMOVE_ALL -> {
        request.reader().finish();
        new CountReply(metadata.removeAll()).encode(out);
      }
      case PIN -> {
        PinRequest pin = PinRequest.decode(request.reader());
        new StatusList(List.of(metadata.pin(pin.key(), pin.pinned()))).encode(out);
      }
      case STATS -> {
        request.reader().finish();
        metadata.stats().encode(out);
      }
      default -> {
        session.replyError(request, ErrorCode.UNKNOWN_OPCODE, request.opcode() + " is not served by the master");
        return;
      }
    }
    session.reply(request, out);
  }
}
