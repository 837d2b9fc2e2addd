{{/* Names, labels and the checks every certificate mode shares. */}}

{{- define "hookkeeper.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Objects are named after the release, as webhook-config/base names them "hookkeeper" for release "hookkeeper". */}}
{{- define "hookkeeper.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "hookkeeper.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hookkeeper.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "hookkeeper.labels" -}}
{{ include "hookkeeper.selectorLabels" . }}
app.kubernetes.io/part-of: hookkeeper
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Secret with tls.crt and tls.key, mounted by the pods; who writes it depends on certificates.mode. */}}
{{- define "hookkeeper.tlsSecretName" -}}
{{- printf "%s-tls" (include "hookkeeper.fullname" .) -}}
{{- end -}}

{{/* Annotations on both webhook configurations that have the CA injected (openshift, cert-manager). */}}
{{- define "hookkeeper.webhookAnnotations" -}}
{{- if eq .Values.certificates.mode "openshift" }}
annotations:
  service.beta.openshift.io/inject-cabundle: "true"
{{- else if eq .Values.certificates.mode "cert-manager" }}
annotations:
  cert-manager.io/inject-ca-from: {{ printf "%s/%s" .Release.Namespace (include "hookkeeper.tlsSecretName" .) }}
{{- end }}
{{- end -}}

{{/* The self-managed caBundle, checked to be the base64 of a PEM certificate; nothing in the other modes. */}}
{{- define "hookkeeper.caBundle" -}}
{{- if eq .Values.certificates.mode "self-managed" -}}
{{- $ca := required "certificates.selfManaged.caBundle is required when certificates.mode is self-managed: the base64 of the CA's PEM, as `hookkeeper certs` prints it" .Values.certificates.selfManaged.caBundle -}}
{{- if not (contains "-----BEGIN CERTIFICATE-----" (b64dec $ca)) -}}
{{- fail "certificates.selfManaged.caBundle must be the base64 of a PEM CA certificate (as `hookkeeper certs` prints it)" -}}
{{- end -}}
caBundle: {{ $ca }}
{{- end -}}
{{- end -}}

{{/* The endpoint of one webhook: the Service on 443 at PATH, plus the caBundle in self-managed mode. */}}
{{- define "hookkeeper.clientConfig" -}}
clientConfig:
  service:
    name: {{ include "hookkeeper.fullname" .root }}
    namespace: {{ .root.Release.Namespace }}
    path: {{ .path }}
    port: 443
  {{- with (include "hookkeeper.caBundle" .root) }}
  {{- . | nindent 2 }}
  {{- end }}
{{- end -}}

{{/* Never guard the release namespace, where hookkeeper runs: the way back from a broken webhook must stay open. */}}
{{- define "hookkeeper.namespaceSelector" -}}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values: [{{ .Release.Namespace }}]
{{- end -}}

{{/* "true" when the webhook is installed (admission.mode webhook or both); empty in native mode, which installs no
webhook, Deployment or certificate: the API server enforces the rules itself. */}}
{{- define "hookkeeper.webhook" -}}
{{- if ne .Values.admission.mode "native" -}}true{{- end -}}
{{- end -}}

{{/* A webhook's failurePolicy: the value given, or Ignore in admission.mode both, where the native policies are the
fail-closed backstop and an outage of hookkeeper must neither block writes nor open the door. */}}
{{- define "hookkeeper.failurePolicy" -}}
{{- if eq .root.Values.admission.mode "both" -}}Ignore{{- else -}}{{ .value }}{{- end -}}
{{- end -}}

{{/* The policy file's text: the profile's own file (policyProfile cluster-api: files/profiles/cluster-api.yaml, a link
to webhook-config/components/cluster-api/policy.yaml), else the policy value. A profile is a whole policy file, so it
refuses a policy value that sets anything: copy the profile into policy to change it. */}}
{{- define "hookkeeper.policyText" -}}
{{- if eq .Values.policyProfile "cluster-api" -}}
{{- $given := fromYaml .Values.policy -}}
{{- if gt (len (omit $given "apiVersion" "kind")) 0 -}}
{{- fail "policyProfile cluster-api installs the chart's Cluster API policy file, and policy sets more than apiVersion and kind: set one or the other (to change the profile, copy charts/hookkeeper/files/profiles/cluster-api.yaml into policy and leave policyProfile at openshift)" -}}
{{- end -}}
{{- .Files.Get "files/profiles/cluster-api.yaml" -}}
{{- else -}}
{{- .Values.policy -}}
{{- end -}}
{{- end -}}

{{/* The policy file as JSON, after the checks serve would fail on first: a YAML mapping with hookkeeper's apiVersion
and kind. */}}
{{- define "hookkeeper.policy" -}}
{{- $policy := fromYaml (include "hookkeeper.policyText" .) -}}
{{- if hasKey $policy "Error" -}}
{{- fail (printf "policy is not a YAML mapping: %s" $policy.Error) -}}
{{- end -}}
{{- if or (ne (toString $policy.apiVersion) "hookkeeper.io/v1alpha1") (ne (toString $policy.kind) "Policy") -}}
{{- fail "policy must be a YAML mapping with apiVersion: hookkeeper.io/v1alpha1 and kind: Policy (docs/policy.md)" -}}
{{- end -}}
{{- toJson $policy -}}
{{- end -}}
