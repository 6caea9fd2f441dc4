package io.kvpool.testkube.kubelet;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A container's environment as a kubelet builds it: the image's variables, the service variables of
 * the API server, {@code envFrom}, then {@code env} in order, with {@code $(VAR)} references to
 * earlier variables expanded and values from the downward API, ConfigMaps and Secrets. The same
 * expansion applies to command and args.
 */
final class PodEnvironment {
  private final Map<String, String> env = new LinkedHashMap<>();

  private PodEnvironment() {}

  /**
   * @throws PodStartException when a referenced ConfigMap, Secret or key is missing (the pod does
   *     not start, as with CreateContainerConfigError)
   */
  static PodEnvironment of(
      Pod pod,
      Container container,
      ContainerImage image,
      String podIp,
      String hostIp,
      Map<String, String> serviceEnv,
      KubernetesClient client) {
    PodEnvironment e = new PodEnvironment();
    e.env.putAll(image.env());
    e.env.putAll(serviceEnv);
    String ns = pod.getMetadata().getNamespace();
    for (EnvFromSource from :
        container.getEnvFrom() == null ? List.<EnvFromSource>of() : container.getEnvFrom()) {
      String prefix = from.getPrefix() == null ? "" : from.getPrefix();
      if (from.getConfigMapRef() != null) {
        configMap(client, ns, from.getConfigMapRef().getName())
            .forEach((k, v) -> e.env.put(prefix + k, v));
      }
      if (from.getSecretRef() != null) {
        secret(client, ns, from.getSecretRef().getName())
            .forEach((k, v) -> e.env.put(prefix + k, v));
      }
    }
    for (EnvVar var : container.getEnv() == null ? List.<EnvVar>of() : container.getEnv()) {
      String value =
          var.getValueFrom() != null
              ? from(var.getName(), var.getValueFrom(), pod, container, podIp, hostIp, client)
              : e.expand(var.getValue() == null ? "" : var.getValue());
      e.env.put(var.getName(), value);
    }
    return e;
  }

  Map<String, String> variables() {
    return env;
  }

  /** Command and args with {@code $(VAR)} expanded; {@code $$} is a literal {@code $}. */
  List<String> expand(List<String> words) {
    List<String> out = new ArrayList<>();
    if (words != null) {
      words.forEach(w -> out.add(expand(w)));
    }
    return out;
  }

  String expand(String text) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '$' && i + 1 < text.length() && text.charAt(i + 1) == '$') {
        out.append('$');
        i++;
      } else if (c == '$' && i + 1 < text.length() && text.charAt(i + 1) == '(') {
        int end = text.indexOf(')', i);
        String name = end < 0 ? null : text.substring(i + 2, end);
        if (name != null && env.containsKey(name)) {
          out.append(env.get(name));
          i = end;
        } else {
          out.append(c); // unknown references stay as written, as a kubelet leaves them
        }
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static String from(
      String name,
      EnvVarSource source,
      Pod pod,
      Container container,
      String podIp,
      String hostIp,
      KubernetesClient client) {
    String ns = pod.getMetadata().getNamespace();
    if (source.getFieldRef() != null) {
      String path = source.getFieldRef().getFieldPath();
      return switch (path) {
        case "metadata.name" -> pod.getMetadata().getName();
        case "metadata.namespace" -> ns;
        case "metadata.uid" -> pod.getMetadata().getUid();
        case "spec.nodeName" -> "test-kubelet";
        case "spec.serviceAccountName" -> pod.getSpec().getServiceAccountName();
        case "status.podIP" -> podIp;
        case "status.hostIP" -> hostIp;
        default -> {
          if (path.startsWith("metadata.labels['") && path.endsWith("']")) {
            yield pod.getMetadata()
                .getLabels()
                .getOrDefault(path.substring(17, path.length() - 2), "");
          }
          if (path.startsWith("metadata.annotations['") && path.endsWith("']")) {
            yield pod.getMetadata()
                .getAnnotations()
                .getOrDefault(path.substring(22, path.length() - 2), "");
          }
          throw new PodStartException(
              "CreateContainerConfigError",
              "env " + name + ": field " + path + " is not supported by the test kubelet");
        }
      };
    }
    if (source.getConfigMapKeyRef() != null) {
      var ref = source.getConfigMapKeyRef();
      String value = configMap(client, ns, ref.getName()).get(ref.getKey());
      if (value == null) {
        throw new PodStartException(
            "CreateContainerConfigError",
            "couldn't find key " + ref.getKey() + " in ConfigMap " + ns + "/" + ref.getName());
      }
      return value;
    }
    if (source.getSecretKeyRef() != null) {
      var ref = source.getSecretKeyRef();
      String value = secret(client, ns, ref.getName()).get(ref.getKey());
      if (value == null) {
        throw new PodStartException(
            "CreateContainerConfigError",
            "couldn't find key " + ref.getKey() + " in Secret " + ns + "/" + ref.getName());
      }
      return value;
    }
    if (source.getResourceFieldRef() != null) {
      return resource(
          container.getResources(),
          source.getResourceFieldRef().getResource(),
          source.getResourceFieldRef().getDivisor());
    }
    throw new PodStartException(
        "CreateContainerConfigError", "env " + name + " has an unsupported source");
  }

  /**
   * A limit (or request) as a whole number of divisor units, rounded up, as the downward API gives
   * it.
   */
  private static String resource(ResourceRequirements resources, String field, Quantity divisor) {
    String[] parts = field.split("\\.", 2);
    Map<String, Quantity> map =
        resources == null
            ? null
            : parts[0].equals("limits") ? resources.getLimits() : resources.getRequests();
    Quantity q = map == null ? null : map.get(parts[1]);
    if (q == null) {
      // no limit: the node's allocatable; this machine's memory or cores
      return parts[1].equals("cpu")
          ? Integer.toString(Runtime.getRuntime().availableProcessors())
          : Long.toString(Runtime.getRuntime().maxMemory() * 4);
    }
    BigDecimal amount = q.getNumericalAmount();
    BigDecimal unit = divisor == null ? BigDecimal.ONE : divisor.getNumericalAmount();
    return amount.divide(unit, 0, RoundingMode.CEILING).toPlainString();
  }

  static Map<String, String> configMap(KubernetesClient client, String ns, String name) {
    ConfigMap cm = client.configMaps().inNamespace(ns).withName(name).get();
    if (cm == null) {
      throw new PodStartException(
          "CreateContainerConfigError", "configmap \"" + name + "\" not found");
    }
    return cm.getData() == null ? Map.of() : cm.getData();
  }

  static Map<String, String> secret(KubernetesClient client, String ns, String name) {
    Secret s = client.secrets().inNamespace(ns).withName(name).get();
    if (s == null) {
      throw new PodStartException(
          "CreateContainerConfigError", "secret \"" + name + "\" not found");
    }
    Map<String, String> out = new LinkedHashMap<>();
    if (s.getData() != null) {
      s.getData()
          .forEach(
              (k, v) ->
                  out.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
    }
    if (s.getStringData() != null) {
      out.putAll(s.getStringData());
    }
    return out;
  }
}
