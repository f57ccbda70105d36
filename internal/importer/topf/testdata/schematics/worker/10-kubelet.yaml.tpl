machine:
  kubelet:
    nodeIP:
      validSubnets:
        - {{ .Node.IP }}/32
  nodeLabels:
    lab/schematic: {{ .SchematicID | trunc 12 | default "x" }}
