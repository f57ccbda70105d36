machine:
  nodeLabels:
    rack: {{ .Node.Host | upper }}
