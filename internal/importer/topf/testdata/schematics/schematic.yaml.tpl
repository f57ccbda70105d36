customization:
  systemExtensions:
    officialExtensions:
      - siderolabs/iscsi-tools
{{- if and .Node.Data (index .Node.Data "gpu") }}
      - siderolabs/intel-ucode
{{- end }}
