package io.kvpool.master;

import java.util.Set;

/**
 * A single master without election (local pools, tests): it leads from the start until it closes.
 * It keeps no record of its storage nodes, so a restarted sole master ends recovery when
 * registrations go quiet.
 */
final class SoleLeadership implements Leadership {
  private Listener listener;

  @Override
  public void start(Listener listener) {
    this.listener = listener;
    listener.startedLeading(Set.of());
  }

  @Override
  public boolean certain() {
    return true; // nobody else can lead
  }

  @Override
  public void stepDown() {
    // nobody to hand over to: a sole master keeps leading
  }

  @Override
  public void close() {
    if (listener != null) {
      listener.stoppedLeading();
    }
  }
}
