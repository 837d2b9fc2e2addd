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

{{/* Never guard kube-system or hookkeeper's own namespace: the way back from a broken webhook must stay open. */}}
{{- define "hookkeeper.namespaceSelector" -}}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values: [kube-system, {{ .Release.Namespace }}]
{{- end -}}
