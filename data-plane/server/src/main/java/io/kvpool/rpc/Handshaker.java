package io.kvpool.rpc;

import io.kvpool.protocol.AuthRequest;
import io.kvpool.protocol.BodyReader;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.FrameChannel;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.HandshakeRules;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PoolKey;
import io.kvpool.protocol.ProtocolException;
import io.kvpool.security.PoolSecrets;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start of every connection a server accepts (PROTOCOL.md, "Connection life cycle"): the
 * HANDSHAKE and its version and pool rules, the session cap, and, when the pool has secrets, the
 * challenge–response AUTH. Refusals are answered, counted and logged (once per distinct peer); the
 * caller closes the connection.
 */
final class Handshaker {
  private static final Logger LOG = LoggerFactory.getLogger(Handshaker.class);
  private static final RateLimitedLog REFUSALS = new RateLimitedLog(LOG, 5_000);
  private static final SecureRandom NONCES = new SecureRandom();

  private final String name;
  private final RpcServer.Identity identity;
  private final ServerLimits limits;
  private final PoolSecrets secrets;
  private final AtomicInteger sessions;
  private final ServingLoad load;
  private final RpcMetrics metrics;
  private final Set<String> refusedPeersLogged = ConcurrentHashMap.newKeySet();

  Handshaker(
      String name,
      RpcServer.Identity identity,
      ServerLimits limits,
      PoolSecrets secrets,
      AtomicInteger sessions,
      ServingLoad load,
      RpcMetrics metrics) {
    this.name = name;
    this.identity = identity;
    this.limits = limits;
    this.secrets = secrets;
    this.sessions = sessions;
    this.load = load;
    this.metrics = metrics;
  }

  /** The session, or null when the handshake was refused (answered and to be closed). */
  Session handshake(FrameChannel fc, String remote, ConnectionDeadline deadline)
      throws IOException {
    Frame first = fc.read();
    if (first == null) {
      return null;
    }
    if (first.opcode() != Opcode.HANDSHAKE || first.header().isResponse()) {
      throw new ProtocolException(
          "first frame has opcode " + first.header().opcode() + ", expected HANDSHAKE");
    }
    BodyReader body = first.reader();
    Handshake peer = Handshake.decodePrefix(body);
    Handshake local = identity.handshake();
    HandshakeException refusal = HandshakeRules.check(local, peer);
    HandshakeRequest request = refusal == null ? HandshakeRequest.decodeRest(peer, body) : null;
    Session session =
        new Session(fc, peer, request == null ? 0 : request.view(), remote, deadline, limits, load);
    if (refusal != null) {
      metrics.refused(refusal.code());
      if (refusedPeersLogged.size() > 10_000) {
        refusedPeersLogged.clear(); // once per distinct peer, but never an unbounded set
      }
      if (refusedPeersLogged.add(
          peer.peerId() + "@" + remote.replaceAll(":\\d+$", "") + "/" + peer.version())) {
        LOG.warn(
            "event=handshake_refused server={} peer={} peerId={} peerRole={} reason=\"{}\"",
            name,
            remote,
            peer.peerId(),
            peer.role(),
            refusal.getMessage());
      }
      session.replyError(first, refusal.code(), refusal.getMessage());
      return null;
    }
    if (sessions.incrementAndGet() > limits.maxSessions()) {
      sessions.decrementAndGet();
      metrics.refused(ErrorCode.BUSY);
      REFUSALS.warn(
          "event=connection_refused server={} peer={} reason=busy sessions={}",
          name,
          remote,
          limits.maxSessions());
      session.replyError(
          first,
          ErrorCode.BUSY,
          name
              + " serves its maximum of "
              + limits.maxSessions()
              + " sessions; try again or another replica");
      return null;
    }
    try {
      if (!secrets.enabled()) {
        BodyWriter w = new BodyWriter();
        identity.reply().encode(w);
        session.reply(first, w);
      } else if (!authenticate(fc, first, peer, request, session, remote)) {
        sessions.decrementAndGet();
        return null;
      }
    } catch (IOException | RuntimeException e) {
      sessions.decrementAndGet();
      throw e;
    }
    metrics.accepted(peer.role());
    return session;
  }

  /**
   * PROTOCOL.md, "Authentication": this server proves the key the peer named, then the peer proves
   * it in AUTH, both over the peer's exact HANDSHAKE body and this server's fresh nonce. False when
   * refused (answered, to be closed).
   */
  private boolean authenticate(
      FrameChannel fc,
      Frame first,
      Handshake peer,
      HandshakeRequest request,
      Session session,
      String remote)
      throws IOException {
    String refusal = null;
    String reason = null;
    ErrorCode code = ErrorCode.AUTH_FAILED;
    Optional<PoolSecrets.Accepted> accepted = Optional.empty();
    if (request.keyId().length == 0) {
      reason = "no_key";
      code = ErrorCode.AUTH_REQUIRED;
      refusal =
          name
              + " requires authentication: give this "
              + peer.role().name().toLowerCase(Locale.ROOT)
              + " the pool's key";
    } else {
      accepted = secrets.find(request.keyId());
      if (accepted.isEmpty()) {
        reason = "unknown_key";
        refusal =
            "the key this peer offers is not one of the pool's keys (a wrong or retired secret)";
      } else if (!accepted.get().admits(peer.role())) {
        reason = "role";
        refusal =
            "the client key does not admit role "
                + peer.role()
                + ": storage nodes and masters need the"
                + " cluster key";
      }
    }
    if (refusal != null) {
      authRefused(reason, peer, remote);
      session.replyError(first, code, refusal);
      return false;
    }
    PoolKey key = accepted.get().key();
    byte[] requestBody = bodyBytes(first);
    byte[] nonce = new byte[HandshakeRequest.NONCE_BYTES];
    NONCES.nextBytes(nonce);
    BodyWriter w = new BodyWriter();
    identity.reply(nonce, key.serverProof(requestBody, nonce)).encode(w);
    session.reply(first, w);
    Frame auth = fc.read();
    if (auth == null) {
      return false;
    }
    if (auth.opcode() != Opcode.AUTH || auth.header().isResponse()) {
      throw new ProtocolException(
          "expected AUTH after an authenticated handshake, got opcode " + auth.header().opcode());
    }
    AuthRequest proof = AuthRequest.decode(auth.reader());
    if (!PoolKey.same(key.clientProof(requestBody, nonce), proof.proof())) {
      authRefused("bad_proof", peer, remote);
      session.replyError(
          auth, ErrorCode.AUTH_FAILED, "wrong proof for the pool key this peer named");
      return false;
    }
    session.reply(auth, null);
    return true;
  }

  private void authRefused(String reason, Handshake peer, String remote) {
    metrics.authFailed(reason);
    REFUSALS.warn(
        "event=auth_refused server={} peer={} peerId={} peerRole={} reason={}",
        name,
        remote,
        peer.peerId(),
        peer.role(),
        reason);
  }

  private static byte[] bodyBytes(Frame frame) {
    ByteBuffer body = frame.body().duplicate();
    body.rewind();
    byte[] bytes = new byte[body.remaining()];
    body.get(bytes);
    return bytes;
  }
}
