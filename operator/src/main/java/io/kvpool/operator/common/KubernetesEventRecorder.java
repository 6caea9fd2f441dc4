package io.kvpool.operator.common;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Publishes core/v1 Events about a custom resource, as {@code kubectl describe} shows them. */
public final class KubernetesEventRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesEventRecorder.class);

  /** Normal or Warning, the two event types Kubernetes knows. */
  public enum Type {
    Normal,
    Warning
  }

  private final KubernetesClient client;

  public KubernetesEventRecorder(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Publishes one Event; the message is bounded like every status message ({@link StatusMessage}).
   */
  public void record(HasMetadata about, Type type, String reason, String text) {
    String message = StatusMessage.bound(text);
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    var event =
        new EventBuilder()
            .withNewMetadata()
            .withName(
                about.getMetadata().getName() + "." + UUID.randomUUID().toString().substring(0, 13))
            .withNamespace(about.getMetadata().getNamespace())
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withApiVersion(about.getApiVersion())
                    .withKind(about.getKind())
                    .withName(about.getMetadata().getName())
                    .withNamespace(about.getMetadata().getNamespace())
                    .withUid(about.getMetadata().getUid())
                    .withResourceVersion(about.getMetadata().getResourceVersion())
                    .build())
            .withType(type.name())
            .withReason(reason)
            .withMessage(message)
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withCount(1)
            .withNewSource()
            .withComponent(PoolLabels.OPERATOR)
            .endSource()
            .withReportingComponent(PoolLabels.OPERATOR)
            .build();
    try {
      client.v1().events().inNamespace(about.getMetadata().getNamespace()).resource(event).create();
      LOG.info(
          "event kind={} name={} type={} reason={} message=\"{}\"",
          about.getKind(),
          about.getMetadata().getName(),
          type,
          reason,
          message);
    } catch (KubernetesClientException e) {
      // An event is a notification; failing to publish one must not fail the reconciliation.
      LOG.warn(
          "event not published kind={} name={} reason={} code={} error=\"{}\"",
          about.getKind(),
          about.getMetadata().getName(),
          reason,
          e.getCode(),
          e.getMessage());
    }
  }
}
