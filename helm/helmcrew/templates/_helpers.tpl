{{- define "helmcrew.labels" -}}
app.kubernetes.io/name: helmcrew
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}
