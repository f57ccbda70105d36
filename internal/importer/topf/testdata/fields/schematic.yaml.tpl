customization:
  extraKernelArgs:
    - net.ifnames=0
  systemExtensions:
    officialExtensions:
      - siderolabs/iscsi-tools
{{- if and .Node.Data (index .Node.Data "gpu") }}
      - siderolabs/nvidia-container-toolkit-lts
{{- end }}
