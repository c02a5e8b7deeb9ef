{{/*
The parts and what each calls over gRPC: the source of the peer URLs (<PART>_URL) and of the
NetworkPolicies. Keep in step with services/<part>/main.ts and gateway/main.ts (test/kubernetes.test.ts
checks it). `internet`: the part calls out of the cluster (providers, merchant endpoints).
*/}}
{{- define "svc.topology" -}}
gateway:
  calls: [payments, routing-risk, ledger, payouts, webhooks]
  internet: false
payments:
  calls: [routing-risk, ledger]
  internet: true
routing-risk:
  calls: []
  internet: false
ledger:
  calls: []
  internet: false
payouts:
  calls: [routing-risk, ledger, payments]
  internet: true
webhooks:
  calls: []
  internet: true
{{- end }}

{{/* Chart name, for app.kubernetes.io/name. */}}
{{- define "svc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Prefix of every resource name: the release name, plus the chart name unless it is in it. */}}
{{- define "svc.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of one part's resources; called with (dict "root" $ "part" "payments"). */}}
{{- define "svc.partName" -}}
{{- printf "%s-%s" (include "svc.fullname" .root) .part | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "svc.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of resources that belong to no single part; called with the root context. */}}
{{- define "svc.commonLabels" -}}
helm.sh/chart: {{ include "svc.chart" . }}
app.kubernetes.io/name: {{ include "svc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: svc
{{- end }}

{{/* Selector labels of one part; called with (dict "root" $ "part" NAME). */}}
{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "svc.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .part }}
{{- end }}

{{/* All labels of one part's resources; called with (dict "root" $ "part" NAME). */}}
{{- define "svc.labels" -}}
{{ include "svc.commonLabels" .root }}
app.kubernetes.io/component: {{ .part }}
{{- end }}

{{/* The Secret holding DATABASE_URL, NATS_URL, OPERATOR_TOKEN, INTERNAL_TOKEN, INTERNAL_CALLERS, WEBHOOK_SECRET_KEY, PROVIDER_SECRET_KEY, SMTP_PASSWORD. */}}
{{- define "svc.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "svc.fullname" .) }}
{{- end }}

{{- define "svc.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
WEBHOOK_SECRET_KEY of the Secret the chart makes: the value given, else the one this release's
Secret already holds (an upgrade never changes it: the stored signing secrets are sealed with it),
else 32 new random bytes in base64 on the first install.
*/}}
{{- define "svc.webhookSecretKey" -}}
{{- if .Values.secrets.webhookSecretKey }}
{{- .Values.secrets.webhookSecretKey }}
{{- else }}
{{- $current := lookup "v1" "Secret" .Release.Namespace (include "svc.fullname" .) }}
{{- if and $current $current.data (hasKey $current.data "WEBHOOK_SECRET_KEY") }}
{{- index $current.data "WEBHOOK_SECRET_KEY" | b64dec }}
{{- else }}
{{- randBytes 32 }}
{{- end }}
{{- end }}
{{- end }}

{{/* A secretKeyRef env entry; called with (dict "root" $ "name" VAR "optional" BOOL). */}}
{{- define "svc.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "svc.secretName" .root }}
      key: {{ .name }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end }}

{{/* The environment of one part's container; called with (dict "root" $ "part" NAME). */}}
{{- define "svc.env" -}}
{{- $root := .root }}
{{- $topology := include "svc.topology" $root | fromYaml }}
{{- include "svc.secretEnv" (dict "root" $root "name" "DATABASE_URL" "optional" false) | nindent 0 }}
{{- include "svc.secretEnv" (dict "root" $root "name" "NATS_URL" "optional" false) | nindent 0 }}
- name: NATS_STREAM
  value: {{ $root.Values.nats.stream | quote }}
- name: NATS_SUBJECT_PREFIX
  value: {{ $root.Values.nats.subjectPrefix | quote }}
- name: NATS_STREAM_REPLICAS
  value: {{ $root.Values.nats.streamReplicas | quote }}
{{- with $root.Values.nats.streamPlacement }}
{{- if .cluster }}
- name: NATS_STREAM_CLUSTER
  value: {{ .cluster | quote }}
{{- end }}
{{- if .tags }}
- name: NATS_STREAM_TAGS
  value: {{ join "," .tags | quote }}
{{- end }}
{{- end }}
{{- /* A part retries its start-up steps for as long as its startup probe waits for it, then exits naming the step. */}}
- name: START_TIMEOUT_MS
  value: {{ mul $root.Values.probes.startup.periodSeconds $root.Values.probes.startup.failureThreshold 1000 | quote }}
{{- if eq .part "gateway" }}
- name: PORT
  value: "8080"
{{- include "svc.secretEnv" (dict "root" $root "name" "OPERATOR_TOKEN" "optional" false) | nindent 0 }}
{{- else }}
- name: GRPC_PORT
  value: {{ $root.Values.grpcPort | quote }}
{{- end }}
{{- /* GET /metrics on its own port, apart from the API (services/platform/metrics.ts). */}}
- name: METRICS_PORT
  value: {{ $root.Values.metrics.port | quote }}
{{- with $root.Values.otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- with $root.Values.otel.protocol }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ . | quote }}
{{- end }}
{{- /* Every part presents INTERNAL_TOKEN to the parts it calls and admits it and INTERNAL_CALLERS. */}}
{{- include "svc.secretEnv" (dict "root" $root "name" "INTERNAL_TOKEN" "optional" false) | nindent 0 }}
{{- if ne .part "gateway" }}
{{- include "svc.secretEnv" (dict "root" $root "name" "INTERNAL_CALLERS" "optional" true) | nindent 0 }}
{{- end }}
{{- if eq .part "webhooks" }}
{{- /* Required: the part refuses to start without it (an existing Secret must hold it too). */}}
{{- include "svc.secretEnv" (dict "root" $root "name" "WEBHOOK_SECRET_KEY" "optional" false) | nindent 0 }}
{{- end }}
{{- if eq .part "payments" }}
{{- include "svc.secretEnv" (dict "root" $root "name" "PROVIDER_SECRET_KEY" "optional" true) | nindent 0 }}
{{- include "svc.secretEnv" (dict "root" $root "name" "PROVIDER_SECRET_KEY_OTHER" "optional" true) | nindent 0 }}
{{- end }}
{{- /* The dashboard's mail (mail.*): only the gateway sends it; the password only from the Secret. */}}
{{- if and (eq .part "gateway") $root.Values.mail.smtpHost }}
- name: SMTP_HOST
  value: {{ $root.Values.mail.smtpHost | quote }}
- name: SMTP_PORT
  value: {{ $root.Values.mail.smtpPort | quote }}
- name: SMTP_SECURE
  value: {{ $root.Values.mail.smtpSecure | quote }}
- name: MAIL_FROM
  value: {{ required "mail.from is required with mail.smtpHost" $root.Values.mail.from | quote }}
{{- with $root.Values.mail.smtpUser }}
- name: SMTP_USER
  value: {{ . | quote }}
{{- include "svc.secretEnv" (dict "root" $root "name" "SMTP_PASSWORD" "optional" false) | nindent 0 }}
{{- end }}
{{- end }}
{{- range $peer := (index $topology .part).calls }}
- name: {{ $peer | upper | replace "-" "_" }}_URL
  value: {{ printf "http://%s:%v" (include "svc.partName" (dict "root" $root "part" $peer)) $root.Values.grpcPort | quote }}
{{- end }}
{{- range $key, $value := merge (dict) (index $root.Values.parts .part).env $root.Values.env }}
- name: {{ $key }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end }}

{{/* Pod-level settings shared by every part and the migration Job; called with the root context. */}}
{{- define "svc.podSpecCommon" -}}
automountServiceAccountToken: false
enableServiceLinks: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  - name: tmp
    emptyDir:
      sizeLimit: {{ .Values.tmpSizeLimit }}
{{- end }}

{{/* Egress rules to DNS, Postgres and, if "nats" is true, NATS; called with (dict "root" $ "nats" BOOL). */}}
{{- /* The port of otel.endpoint: the URL's own, or its scheme's. */}}
{{- define "svc.otelPort" -}}
{{- $url := urlParse .Values.otel.endpoint }}
{{- $port := regexFind ":[0-9]+$" $url.host | trimPrefix ":" }}
{{- $port | default (eq $url.scheme "https" | ternary "443" "80") }}
{{- end }}

{{- define "svc.egressInfra" -}}
{{- $egress := .root.Values.networkPolicy.egress }}
- ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
  {{- with $egress.dns.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
- ports:
    - port: {{ $egress.postgres.port }}
      protocol: TCP
  {{- with $egress.postgres.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- if .nats }}
- ports:
    - port: {{ $egress.nats.port }}
      protocol: TCP
  {{- with $egress.nats.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}
