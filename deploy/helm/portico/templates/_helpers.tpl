{{- define "portico.labels" -}}
app.kubernetes.io/name: portico
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "portico.selector" -}}
app.kubernetes.io/name: portico
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: server
{{- end -}}

{{- define "portico.redisAddress" -}}
{{- if .Values.redis.address -}}{{ .Values.redis.address }}{{- else -}}{{ .Release.Name }}-redis:6379{{- end -}}
{{- end -}}
