machine:
  env:
    BUILT: {{ now | date "2006-01-02" }}
