{{/*
Name of every object of a release: the release name itself (the ConfigMap adds "-page").
*/}}
{{- define "unicorn.fullname" -}}
{{- .Release.Name | trunc 58 | trimSuffix "-" -}}
{{- end -}}

{{- define "unicorn.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "unicorn.labels" -}}
{{ include "unicorn.selectorLabels" . }}
{{- /* A label value allows no "+": build metadata (1.0.0+build.1) is spelled with "_", as helm.sh/chart is. */}}
app.kubernetes.io/version: {{ .Chart.AppVersion | replace "+" "_" | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/*
The web page: one HTML file showing a unicorn in .Values.color. The Deployment carries its
checksum, so a change of colour or message rolls the pods.
*/}}
{{- define "unicorn.page" -}}
{{- $color := .Values.color | html -}}
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>The {{ $color }} unicorn</title>
<style>
  body { margin: 0; min-height: 100vh; display: flex; flex-direction: column; align-items: center;
         justify-content: center; font-family: system-ui, sans-serif; background: #fbf9fd; color: #3b2a4a; }
  h1 { font-size: 2rem; margin: 0.5rem 0; }
  h1 span { color: {{ $color }}; -webkit-text-stroke: 1px #3b2a4a; }
  svg { width: min(80vw, 420px); height: auto; }
  p { margin: 0.25rem 0; }
  .version { font-size: 0.8rem; opacity: 0.6; }
</style>
</head>
<body data-color="{{ $color }}">
<svg viewBox="0 0 220 170" role="img" aria-label="a {{ $color }} unicorn">
  <g stroke="#3b2a4a" stroke-width="3" stroke-linejoin="round" stroke-linecap="round">
    <path d="M50 82 C 22 74, 14 108, 28 130 C 32 112, 40 100, 54 96 Z" fill="{{ $color }}" fill-opacity="0.6"/>
    <rect x="62" y="108" width="12" height="50" rx="5" fill="{{ $color }}"/>
    <rect x="82" y="112" width="12" height="46" rx="5" fill="{{ $color }}"/>
    <rect x="118" y="112" width="12" height="46" rx="5" fill="{{ $color }}"/>
    <rect x="138" y="108" width="12" height="50" rx="5" fill="{{ $color }}"/>
    <path d="M152 30 Q 130 34 140 46 Q 122 52 136 62 Q 118 70 132 80 L 150 60 Z" fill="{{ $color }}" fill-opacity="0.6"/>
    <path d="M136 86 L 150 42 L 174 46 L 160 100 Z" fill="{{ $color }}"/>
    <ellipse cx="104" cy="96" rx="58" ry="30" fill="{{ $color }}"/>
    <path d="M158 36 L 160 22 L 168 34 Z" fill="{{ $color }}"/>
    <ellipse cx="174" cy="54" rx="28" ry="15" transform="rotate(22 174 54)" fill="{{ $color }}"/>
    <path d="M164 38 L 178 4 L 177 42 Z" fill="#f6c945"/>
    <circle cx="180" cy="50" r="3" fill="#3b2a4a" stroke="none"/>
    <line x1="20" y1="160" x2="200" y2="160"/>
  </g>
</svg>
<h1>🦄 The <span>{{ $color }}</span> unicorn</h1>
{{- with .Values.message }}
<p class="message">{{ . | html }}</p>
{{- end }}
<p class="version">{{ .Chart.Name }} {{ .Chart.Version | html }}</p>
</body>
</html>
{{- end -}}
