package io.kvpool.master;

/** A single master without election (local pools, tests): it leads from the start until it closes. */
final class SoleLeadership implements Leadership {
  private Listener listener;

  @Override
  public void start(Listener listener) {
    this.listener = listener;
    listener.startedLeading();
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
