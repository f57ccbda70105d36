machine:
  env:
    HOST: {{ .Node.Host | sha256sum }}
