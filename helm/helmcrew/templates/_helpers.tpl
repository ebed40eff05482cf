{{- define "helmcrew.labels" -}}
app.kubernetes.io/name: helmcrew
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The pods of one part: run, controller, notify, bot, web or redis. */}}
{{- define "helmcrew.selector" -}}
app.kubernetes.io/name: helmcrew
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .part }}
{{- end -}}

{{/*
The parts that run, each with its Deployment, ServiceAccount and command, as a YAML list:
one "run" process, or controller, notify, (with a Slack Secret) bot and (with web.enabled) web.
Each entry says which rights it needs: controller, notify, bot, web.
*/}}
{{- define "helmcrew.parts" -}}
{{- $r := .Release.Name -}}
{{- if .Values.parts.split }}
- { part: controller, name: {{ $r }}-controller, args: [controller], rights: [controller] }
- { part: notify, name: {{ $r }}-notify, args: [notify], rights: [notify] }
{{- if and .Values.slack.existingSecret .Values.parts.bot.enabled }}
- { part: bot, name: {{ $r }}-bot, args: [bot], rights: [bot] }
{{- end }}
{{- if .Values.web.enabled }}
- { part: web, name: {{ $r }}-web, args: [web], rights: [web] }
{{- end }}
{{- else }}
- { part: run, name: {{ $r }}, args: [run], rights: [controller, notify{{ if .Values.slack.existingSecret }}, bot{{ end }}{{ if .Values.web.enabled }}, web{{ end }}] }
{{- end }}
{{- end -}}

{{/* The ServiceAccount of the part holding the given rights (controller, notify, bot, web). */}}
{{- define "helmcrew.serviceAccount" -}}
{{- range (include "helmcrew.parts" .root | fromYamlArray) }}{{ if has $.rights .rights }}{{ .name }}{{ end }}{{ end -}}
{{- end -}}

{{/*
"true" when the release runs its own Redis: redis.inChart.enabled (the default) and no
redis.external.* set. Your Redis, once named, always wins, so setting redis.external.url or
redis.external.existingSecret is all that moving to production takes.
*/}}
{{- define "helmcrew.redisInChart" -}}
{{- if and .Values.redis.inChart.enabled (not (or .Values.redis.external.url .Values.redis.external.existingSecret)) }}true{{ end -}}
{{- end -}}

{{- define "helmcrew.redisUrl" -}}
- name: REDIS_URL
{{- if include "helmcrew.redisInChart" . }}
  value: {{ printf "redis://%s-redis:6379" .Release.Name | quote }}
{{- else if .Values.redis.external.existingSecret }}
  valueFrom: { secretKeyRef: { name: {{ .Values.redis.external.existingSecret }}, key: {{ .Values.redis.external.existingSecretKey }} } }
{{- else }}
  value: {{ .Values.redis.external.url | quote }}
{{- end }}
{{- end -}}

{{- define "helmcrew.podSecurityContext" -}}
{ runAsNonRoot: true, runAsUser: {{ .uid }}, runAsGroup: {{ .uid }}, fsGroup: {{ .uid }}, seccompProfile: { type: RuntimeDefault } }
{{- end -}}

{{- define "helmcrew.containerSecurityContext" -}}
{ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, privileged: false, capabilities: { drop: [ALL] } }
{{- end -}}

{{/* The web pages' settings (docs/web.md); the client secrets only from Secrets. */}}
{{- define "helmcrew.webEnv" -}}
{{- $w := .Values.web -}}
- { name: HELMCREW_WEB_LISTEN, value: {{ printf "0.0.0.0:%v" $w.port | quote }} }
- { name: HELMCREW_WEB_URL, value: {{ $w.url | quote }} }
- { name: HELMCREW_WEB_SESSION_SECONDS, value: {{ $w.sessionSeconds | quote }} }
- { name: HELMCREW_WEB_LOGIN_RATE_LIMIT, value: {{ $w.loginRateLimit | quote }} }
- { name: HELMCREW_WEB_TRUST_PROXY, value: {{ $w.trustProxy | quote }} }
{{- if $w.oidc.issuerUrl }}
- { name: HELMCREW_OIDC_ISSUER_URL, value: {{ $w.oidc.issuerUrl | quote }} }
- { name: HELMCREW_OIDC_CLIENT_ID, value: {{ $w.oidc.clientId | quote }} }
- { name: HELMCREW_OIDC_SCOPES, value: {{ $w.oidc.scopes | quote }} }
{{- with $w.oidc.name }}
- { name: HELMCREW_OIDC_NAME, value: {{ . | quote }} }
{{- end }}
- name: HELMCREW_OIDC_CLIENT_SECRET
  valueFrom: { secretKeyRef: { name: {{ required "web.oidc.existingSecret: a Secret holding the OIDC client secret" $w.oidc.existingSecret }}, key: {{ $w.oidc.clientSecretKey }} } }
{{- end }}
{{- if $w.slack.clientId }}
- { name: HELMCREW_SLACK_OIDC_CLIENT_ID, value: {{ $w.slack.clientId | quote }} }
- name: HELMCREW_SLACK_OIDC_CLIENT_SECRET
  valueFrom: { secretKeyRef: { name: {{ required "web.slack.existingSecret: a Secret holding the Slack app's client secret" $w.slack.existingSecret }}, key: {{ $w.slack.clientSecretKey }} } }
{{- with $w.slack.teamId }}
- { name: HELMCREW_SLACK_TEAM_ID, value: {{ . | quote }} }
{{- end }}
{{- end }}
{{- end -}}
