package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/**
 * A pod of the pool that cannot start or keeps failing, with what Kubernetes says about it: a
 * container's waiting reason and message (ImagePullBackOff, CrashLoopBackOff,
 * CreateContainerConfigError...) or the scheduler's (Unschedulable, with its message). Shown in
 * {@code status.failingPods}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class FailingPod {
  private String name;
  private String reason;
  private String message;

  public static FailingPod of(String name, String reason, String message) {
    FailingPod pod = new FailingPod();
    pod.setName(name);
    pod.setReason(reason);
    pod.setMessage(message);
    return pod;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof FailingPod that)) {
      return false;
    }
    return Objects.equals(name, that.name)
        && Objects.equals(reason, that.reason)
        && Objects.equals(message, that.message);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, reason, message);
  }

  @Override
  public String toString() {
    return "FailingPod{name=" + name + ", reason=" + reason + ", message=" + message + '}';
  }
}
