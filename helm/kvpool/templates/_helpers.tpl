{{/* Name of the operator's Deployment, ServiceAccount and RBAC objects: <release>-operator. */}}
{{- define "kvpool.fullname" -}}
{{- printf "%s-operator" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kvpool.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "kvpool.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "kvpool.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{- define "kvpool.labels" -}}
app.kubernetes.io/name: kvpool-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: operator
app.kubernetes.io/part-of: kvpool
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "kvpool.selectorLabels" -}}
app.kubernetes.io/name: kvpool-operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Whether the operator watches only .Values.watchNamespaces (Roles there) or every namespace (a ClusterRole). */}}
{{- define "kvpool.namespaced" -}}
{{- if .Values.watchNamespaces }}true{{ end -}}
{{- end -}}

{{/*
The rules the operator needs in every namespace whose pools it reconciles: bound cluster-wide through a
ClusterRole when it watches all namespaces, or through one Role per watched namespace. Derived from the API
calls of operator/src/main and of the Java Operator SDK / fabric8 code it runs; no verb the code never uses.
*/}}
{{- define "kvpool.poolRules" -}}
# KvCachePool and TransferEngine: read by the informers of both reconcilers (list + watch; nothing calls get).
- apiGroups: ["kvpool.io"]
  resources: ["kvcachepools", "transferengines"]
  verbs: ["list", "watch"]
# Autoscaling (spec.storage.autoscaling.enabled) writes spec.storage.replicas with a merge patch of that field.
- apiGroups: ["kvpool.io"]
  resources: ["kvcachepools"]
  verbs: ["patch"]
# Both statuses are written with a (server-side apply) patch of the status subresource.
- apiGroups: ["kvpool.io"]
  resources: ["kvcachepools/status", "transferengines/status"]
  verbs: ["patch"]
# Every object a pool owns carries an ownerReference with blockOwnerDeletion: true; clusters that enable the
# OwnerReferencesPermissionEnforcement admission plugin (e.g. OpenShift) only allow that with update on the
# owner's finalizers. The operator itself adds no finalizer.
- apiGroups: ["kvpool.io"]
  resources: ["kvcachepools/finalizers"]
  verbs: ["update"]
# The objects a pool is made of (one dependent resource each): read by label-selected informers (list + watch)
# and written with server-side apply (patch, plus create when the object does not exist yet). None is ever
# deleted by the operator: the garbage collector removes them with their pool through the ownerReference.
- apiGroups: [""]
  resources: ["configmaps", "services", "serviceaccounts"]
  verbs: ["list", "watch", "create", "patch"]
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["list", "watch", "create", "patch"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["list", "watch", "create", "patch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["list", "watch", "create", "patch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["list", "watch", "create", "patch"]
# The pool's keys Secret and its clients' key Secret: made once, then kept or rotated, by server-side apply. The
# informer needs list and watch (filtered by the operator's label); nothing calls get, and no key is ever logged.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["list", "watch", "create", "patch"]
# ConfigMaps and Secrets that exist are rewritten with update (a PUT of the whole object), not server-side apply:
# the Java Operator SDK leaves these two kinds out of it (ConfigurationService.defaultNonSSAResources). A pool's
# client ConfigMap changes with every release change (KVPOOL_RELEASE), its keys Secret with a rotation.
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["update"]
# Pods: watched (list + watch) so the pool's status names pods that cannot start and why, and rollouts see what each
# pod runs. delete: rollouts replace the pool's pods one at a time (its StatefulSets are OnDelete), after a get that
# checks the pod is the one planned for; patch: marks a drained surplus storage pod for removal; create and delete:
# the short-lived pod that checks what a new image declares before an upgrade. get and patch are also granted (on
# the master pods by name) in each pool's master Role so the elected master can label its own pod: the API server
# lets the operator create that Role only if it holds every permission in it.
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "create", "delete", "patch"]
# Leases: never touched by the operator in a pool's namespace; held only to grant them in the master Role
# (create, list, watch on leases; get, update on the pool's election Lease), for the same reason as pods.
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
# Events about pools (core/v1, created once per status transition).
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
{{- end -}}
