// runc-nores: the Kubernetes mode's runc. Wraps /usr/bin/runc for hosts whose cgroup v2 hierarchy has no controllers
// (hybrid cgroup hosts): on "create"/"run" it removes linux.resources (except devices) from the bundle's
// config.json, and makes "update" a no-op; everything else is passed through unchanged.
package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
)

var real = "/usr/bin/runc"

func main() {
	if r := os.Getenv("RUNC_NORES_REAL"); r != "" { // test hook
		real = r
	}
	args := os.Args[1:]
	sub, bundle := "", ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if sub == "" {
			switch a {
			case "create", "run", "update":
				sub = a
				continue
			case "--root", "--log", "--log-format", "--criu", "--rootless":
				i++
				continue
			}
			continue
		}
		if a == "--bundle" || a == "-b" {
			if i+1 < len(args) {
				bundle = args[i+1]
			}
		}
	}
	switch sub {
	case "update":
		os.Exit(0)
	case "create", "run":
		if bundle == "" {
			bundle, _ = os.Getwd()
		}
		p := filepath.Join(bundle, "config.json")
		if b, err := os.ReadFile(p); err == nil {
			var spec map[string]any
			if json.Unmarshal(b, &spec) == nil {
				if l, ok := spec["linux"].(map[string]any); ok {
					if r, ok := l["resources"].(map[string]any); ok {
						l["resources"] = map[string]any{"devices": r["devices"]}
					}
				}
				if nb, err := json.Marshal(spec); err == nil {
					_ = os.WriteFile(p, nb, 0o644)
				}
			}
		}
	}
	argv := append([]string{real}, args...)
	if err := syscall.Exec(real, argv, os.Environ()); err != nil {
		os.Stderr.WriteString("runc-nores: " + err.Error() + "\n")
		os.Exit(127)
	}
}
