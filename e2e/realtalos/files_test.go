//go:build realtalos

package realtalos

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

const userFile = "/var/talops-e2e.txt"

// readFile reads a file on the node over the Talos API.
func readFile(t *testing.T, n node, talosconfig, path string) (string, error) {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	r, err := apiClient(t, n, talosconfig).Read(ctx, path)
	if err != nil {
		return "", err
	}
	defer r.Close() //nolint:errcheck // the test is done with it

	data, err := io.ReadAll(r)

	return string(data), err
}

// Talos 1.14 writes machine.files only in its boot sequence: the plan says the change
// needs a reboot, apply does not claim it live, and the real node shows the file only
// after it booted again.
func TestMachineFiles_OnlyWrittenAtBoot(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := l.boot(t, true)

	l.write(t, "nodes/cp1.yaml", "machine:\n  sysctls:\n    "+sysctl+": \"45\"\n  files:\n    - path: "+userFile+"\n      op: create\n      permissions: 0o644\n      content: written at boot\n")

	action, reasons, _ := l.planLive(t, l.admin)
	if action != "reboot" || !strings.Contains(strings.Join(reasons, "; "), "Talos writes files only at boot") {
		t.Fatalf("a machine.files change plans %s %v, want a reboot because Talos writes files only at boot", action, reasons)
	}

	// talops applies the config, then reboots the node: a container-mode node refuses.
	rep, code := l.apply(t)
	got := rep.Nodes[0]

	if code == 0 || got.Outcome != "failed" || !strings.Contains(got.Detail, "then the reboot") || strings.Contains(got.Detail, "applied live") {
		t.Errorf("apply of a machine.files change: exit %d, %+v; want the reboot to fail in container mode, never applied live", code, got)
	}

	// The config is running, the file is not there: applying it did not write it.
	if content, err := readFile(t, n, l.admin, userFile); err == nil {
		t.Errorf("the file is on the node before any reboot: %q", content)
	}

	// A reboot, as the harness emulates it: the node boots again from its saved config.
	n.reboot(t)

	content, err := readFile(t, n, l.admin, userFile)
	if err != nil || content != "written at boot" {
		t.Errorf("after the reboot the file reads %q, %v; want it written at boot", content, err)
	}
}
