package io.kvpool.client;

import io.kvpool.common.HostPort;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.RemoteErrorException;
import java.io.IOException;

/** Maps transport and protocol failures to the client's typed exceptions. */
final class Failures {
  private Failures() {}

  static KvPoolException translate(IOException e, HostPort peer, String doing) {
    if (e instanceof HandshakeException h) {
      if (h.code() == ErrorCode.VERSION_MISMATCH) {
        return new VersionMismatchException(h.getMessage(), h);
      }
      if (h.code() == ErrorCode.AUTH_REQUIRED || h.code() == ErrorCode.AUTH_FAILED) {
        return new AuthenticationException(doing + ": " + h.getMessage(), h);
      }
      if (h.code() == ErrorCode.POOL_MISMATCH) {
        return new PoolMismatchException(
            doing
                + " at "
                + peer
                + ": "
                + h.getMessage()
                + "; point the client at its own pool's masters or correct its pool id",
            h);
      }
      return new ConnectionFailedException(doing + ": " + h.getMessage(), h);
    }
    if (e instanceof RemoteErrorException r) {
      return fromCode(r.code(), doing + " at " + peer + ": " + r.remoteMessage(), r);
    }
    return new ConnectionFailedException(
        doing + ": cannot reach " + peer + " (" + e.getMessage() + ")", e);
  }

  static KvPoolException fromCode(ErrorCode code, String message, Throwable cause) {
    return switch (code) {
      case NOT_FOUND -> new ObjectNotFoundException(message, cause);
      case NO_SPACE -> new NoSpaceException(message, cause);
      case VERSION_MISMATCH -> new VersionMismatchException(message, cause);
      case CHECKSUM_MISMATCH -> new ChecksumMismatchException(message, cause);
      case NODE_UNAVAILABLE -> new ConnectionFailedException(message, cause);
      case NOT_ENOUGH_NODES -> new NoSpaceException(message, cause);
      case AUTH_REQUIRED, AUTH_FAILED -> new AuthenticationException(message, cause);
      case POOL_MISMATCH -> new PoolMismatchException(message, cause);
      default -> new KvPoolException(message + " [" + code + "]", cause, code);
    };
  }

  /**
   * The network or a node failed (or a node belongs to another pool), not the request itself: try
   * elsewhere.
   */
  static boolean transientFailure(KvPoolException e) {
    return e instanceof ConnectionFailedException || e instanceof PoolMismatchException;
  }

  /**
   * Worth another attempt of the whole operation (see the retryable column of PROTOCOL.md's error
   * codes).
   */
  static boolean retryable(KvPoolException e) {
    return e instanceof ConnectionFailedException
        || e instanceof ChecksumMismatchException
        || (e.code() != null && retryable(e.code()));
  }

  static boolean retryable(ErrorCode code) {
    return switch (code) {
      case OBJECT_LEASED,
          GRANT_REJECTED,
          CHECKSUM_MISMATCH,
          NODE_UNAVAILABLE,
          NOT_LEADER,
          PUT_IN_PROGRESS,
          RECOVERING,
          BUSY,
          TOKEN_REJECTED,
          WRITE_INCOMPLETE ->
          true;
      default -> false;
    };
  }
}
