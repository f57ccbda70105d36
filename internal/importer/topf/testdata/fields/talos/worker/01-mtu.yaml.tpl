machine:
  network:
    interfaces:
      - interface: eth0
        mtu: {{ .Data.mtu }}
