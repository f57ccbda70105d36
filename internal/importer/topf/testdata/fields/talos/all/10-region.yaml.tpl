machine:
  nodeLabels:
    topology.kubernetes.io/region: {{ .Data.region | quote }}
  kubelet:
    extraArgs:
      node-ip: {{ default "dhcp" .Node.IP }}
{{- if env "LOG_ENDPOINT" }}
  logging:
    destinations:
      - endpoint: {{ env "LOG_ENDPOINT" }}
        format: json_lines
{{- end }}
