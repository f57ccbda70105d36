//go:build realtalos

package realtalos

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
)

// The sysctl the lab sets on its control plane: a per-network-namespace one, which the
// sandbox lets the node write.
const sysctl = "net.ipv4.tcp_fin_timeout"

// setSysctl changes the lab's value of the sysctl.
func (l *lab) setSysctl(t *testing.T, value string) {
	t.Helper()

	l.write(t, "nodes/cp1.yaml", "machine:\n  sysctls:\n    "+sysctl+": \""+value+"\"\n")
}

// sysctlValue is the sysctl's value as the node's KernelParamStatus reports it (its ID is
// the path under /proc with dots).
func sysctlValue(t *testing.T, n node, talosconfig string) string {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	st, err := safe.StateGetByID[*runtime.KernelParamStatus](ctx, apiClient(t, n, talosconfig).COSI, "proc.sys."+sysctl)
	if err != nil {
		t.Fatalf("read KernelParamStatus %s: %v", sysctl, err)
	}

	return st.TypedSpec().Current
}

// applyReport is the part of apply's JSON view the tests judge.
type applyReport struct {
	Mode         string `json:"mode"`
	DryRun       bool   `json:"dryRun"`
	EtcdSnapshot string `json:"etcdSnapshot"`
	Nodes        []struct {
		Name     string   `json:"name"`
		Action   string   `json:"action"`
		Outcome  string   `json:"outcome"`
		Rebooted bool     `json:"rebooted"`
		Detail   string   `json:"detail"`
		Warnings []string `json:"warnings"`
	} `json:"nodes"`
}

// apply runs talops apply on the lab and returns its one node's result and the exit code.
// The harness's nodes run no Kubernetes API, so the apply lock cannot be taken: --no-lock
// says to go on without it (a running cluster is refused otherwise).
func (l *lab) apply(t *testing.T, args ...string) (applyReport, int) {
	t.Helper()

	r := l.talops(t, append([]string{"apply", "--talosconfig", l.admin, "--format", "json", "--no-lock"}, args...)...)

	var rep applyReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("apply --format json: exit %d, %v\nstdout: %s\nstderr: %s", r.code, err, r.stdout, r.stderr)
	}

	if len(rep.Nodes) != 1 {
		t.Fatalf("apply reported %d nodes, want 1", len(rep.Nodes))
	}

	return rep, r.code
}

// eventually polls check until it is true or a few minutes passed.
func eventually(t *testing.T, what string, within time.Duration, check func() bool) {
	t.Helper()

	deadline := time.Now().Add(within)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}

		time.Sleep(2 * time.Second)
	}
}

func TestApply_SysctlChangeIsAppliedLiveThroughTheGates(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := l.boot(t, true)

	if got := sysctlValue(t, n, l.admin); got != "45" {
		t.Fatalf("the node booted with %s = %q, want 45", sysctl, got)
	}

	l.setSysctl(t, "46")

	if action, reasons, _ := l.planLive(t, l.admin); action != "update" {
		t.Fatalf("a sysctl change plans %s %v, want update (live)", action, reasons)
	}

	rep, code := l.apply(t)
	// The sandboxed node never runs kubelet: it was not ready before and is not after, which
	// the gate accepts and the report says.
	if got := rep.Nodes[0]; code != 0 || got.Outcome != "applied" || got.Rebooted ||
		!strings.HasPrefix(got.Detail, "applied live; not ready, as before the change; unmet: ") || !strings.Contains(got.Detail, "nodeReady") {
		t.Fatalf("apply: exit %d, %+v", code, got)
	}

	// The node's KernelParam controllers set it once they see the new config.
	eventually(t, "the node sets "+sysctl+" = 46", time.Minute, func() bool { return sysctlValue(t, n, l.admin) == "46" })

	if action, reasons, diff := l.planLive(t, l.admin); action != "noop" {
		t.Errorf("after the apply the node plans %s %v\n%s", action, reasons, diff)
	}

	// Applied again, nothing is left to do.
	if rep, code := l.apply(t); code != 0 || rep.Nodes[0].Outcome != "skipped" {
		t.Errorf("a second apply: exit %d, %+v", code, rep.Nodes[0])
	}
}

func TestApply_DryRunShowsTheNodesVerdictAndChangesNothing(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := l.boot(t, true)

	l.setSysctl(t, "47")

	rep, code := l.apply(t, "--dry-run")
	got := rep.Nodes[0]

	if code != 0 || got.Outcome != "dry-run" || !strings.Contains(got.Detail, "the node accepts the config (without a reboot)") ||
		!strings.Contains(got.Detail, "the node says: 2 lines of its config would change") {
		t.Errorf("apply --dry-run: exit %d, %+v", code, got)
	}

	if v := sysctlValue(t, n, l.admin); v != "45" {
		t.Errorf("after a dry run the node has %s = %q, want 45", sysctl, v)
	}

	if action, _, _ := l.planLive(t, l.admin); action != "update" {
		t.Errorf("after a dry run the node plans %s, want update still", action)
	}
}

func TestApply_StagedIsReportedStagedAndNotRunning(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := l.boot(t, true)

	l.setSysctl(t, "48")

	rep, code := l.apply(t, "--mode", "staged")
	if got := rep.Nodes[0]; code != 0 || got.Outcome != "applied" || !strings.HasPrefix(got.Detail, "staged: takes effect on the node's next reboot") {
		t.Errorf("apply --mode staged: exit %d, %+v", code, got)
	}

	if v := sysctlValue(t, n, l.admin); v != "45" {
		t.Errorf("a staged config changed %s to %q before any reboot", sysctl, v)
	}

	if action, _, _ := l.planLive(t, l.admin); action != "update" {
		t.Errorf("a staged config is not the running one: the node plans %s, want update", action)
	}
}

func TestApply_TryModeRollsBack(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := l.boot(t, true)

	l.setSysctl(t, "49")

	rep, code := l.apply(t, "--mode", "try")
	if got := rep.Nodes[0]; code != 0 || got.Outcome != "applied" || !strings.HasPrefix(got.Detail, "applied in try mode: the node rolls it back after ") {
		t.Fatalf("apply --mode try: exit %d, %+v", code, got)
	}

	eventually(t, "in try mode the node sets "+sysctl+" = 49", time.Minute, func() bool { return sysctlValue(t, n, l.admin) == "49" })

	eventually(t, "the node rolls the tried config back", 3*time.Minute, func() bool {
		return sysctlValue(t, n, l.admin) == "45"
	})

	if action, _, _ := l.planLive(t, l.admin); action != "update" {
		t.Errorf("after the rollback the node plans %s, want update", action)
	}
}
