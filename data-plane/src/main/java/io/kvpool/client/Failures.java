package io.kvpool.client;

import io.kvpool.common.HostPort;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.RemoteErrorException;
import java.io.IOException;

/** Maps transport and protocol failures to the client's typed exceptions. */
final class Failures {
  private Failures() {
  }

  static KvPoolException translate(IOException e, HostPort peer, String doing) {
    if (e instanceof HandshakeException h) {
      if (h.code() == ErrorCode.VERSION_MISMATCH) {
        return new VersionMismatchException(h.getMessage(), h);
      }
      return new ConnectionFailedException(doing + ": " + h.getMessage(), h);
    }
    if (e instanceof RemoteErrorException r) {
      return fromCode(r.code(), doing + " at " + peer + ": " + r.remoteMessage(), r);
    }
    return new ConnectionFailedException(doing + ": cannot reach " + peer + " (" + e.getMessage() + ")", e);
  }

  static KvPoolException fromCode(ErrorCode code, String message, Throwable cause) {
    return switch (code) {
      case NOT_FOUND -> new ObjectNotFoundException(message, cause);
      case NO_SPACE -> new NoSpaceException(message, cause);
      case VERSION_MISMATCH -> new VersionMismatchException(message, cause);
      case CHECKSUM_MISMATCH -> new ChecksumMismatchException(message, cause);
      case NODE_UNAVAILABLE -> new ConnectionFailedException(message, cause);
      default -> new KvPoolException(message + " [" + code + "]", cause);
    };
  }

  /** Worth another attempt: the network or a node failed, not the request itself. */
  static boolean transientFailure(KvPoolException e) {
    return e instanceof ConnectionFailedException;
  }
}
