package io.kvpool.events;

import io.kvpool.master.ResidentObject;

/**
 * One change the publisher thread turns into a vLLM event, tagged with the leadership view it
 * happened under.
 */
record ResidencyChange(Kind kind, long view, ResidentObject object) {
  enum Kind {
    STORED,
    REMOVED
  }
}
