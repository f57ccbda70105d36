machine:
  env:
    HOST_ID: {{ .Node.Host | sha256sum | trunc 8 | quote }}
