//go:build alertmanager

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/alertmanager"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// realAlertmanager starts $ALERTMANAGER (the real Alertmanager, which .ci/run builds) on a
// loopback port with a temporary storage and a config that routes nowhere, and returns
// its base URL once it is ready.
func realAlertmanager(t *testing.T) string {
	t.Helper()

	bin := os.Getenv("ALERTMANAGER")
	if bin == "" {
		t.Fatal("$ALERTMANAGER names no Alertmanager binary: .ci/run builds it")
	}

	dir := t.TempDir()
	cfg := filepath.Join(dir, "alertmanager.yml")

	if err := os.WriteFile(cfg, []byte("route:\n  receiver: none\nreceivers:\n  - name: none\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}

	addr := l.Addr().String()
	_ = l.Close()

	var logs bytes.Buffer

	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr, "--cluster.listen-address=")
	cmd.Stdout, cmd.Stderr = &logs, &logs

	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()

		if t.Failed() {
			t.Logf("alertmanager's log:\n%s", logs.String())
		}
	})

	base := "http://" + addr

	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			_ = resp.Body.Close()

			if resp.StatusCode == http.StatusOK {
				return base
			}
		}

		if time.Now().After(deadline) {
			t.Fatalf("alertmanager not ready after 30s: %v", err)
		}
	}
}

// postAlert posts an alert with the labels to the Alertmanager's API, firing from now on,
// or resolved a second ago.
func postAlert(t *testing.T, base string, labels map[string]string, resolved bool) {
	t.Helper()

	a := map[string]any{"labels": labels, "annotations": map[string]string{"description": "token=s3cr3t"}, "startsAt": time.Now().Add(-time.Minute).UTC()}
	if resolved {
		a["endsAt"] = time.Now().Add(-time.Second).UTC()
	}

	b, _ := json.Marshal([]any{a})

	resp, err := http.Post(base+"/api/v2/alerts", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}

	_ = resp.Body.Close()

	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/v2/alerts: %s", resp.Status)
	}
}

// silences lists the Alertmanager's silences created by talops: state and matchers.
func silences(t *testing.T, base string) []string {
	t.Helper()

	resp, err := http.Get(base + "/api/v2/silences")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()

	var got []struct {
		CreatedBy string                 `json:"createdBy"`
		Comment   string                 `json:"comment"`
		Status    struct{ State string } `json:"status"`
		Matchers  []alertmanager.Matcher `json:"matchers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}

	var out []string

	for _, s := range got {
		if s.CreatedBy != alertmanager.CreatedBy || s.Comment != "talops apply of cluster lab, plan hash" {
			continue
		}

		for _, m := range s.Matchers {
			out = append(out, fmt.Sprintf("%s %s=%s regex=%v", s.Status.State, m.Name, m.Value, m.IsRegex))
		}
	}

	slices.Sort(out)

	return out
}

// oneNode is a worker that answers healthy and runs onApply when its config is applied.
type oneNode struct {
	talos.Node // any other call is a test failure (nil interface panics)

	onApply func()
	applied int
}

func (n *oneNode) Dial(context.Context, string) (talos.Node, error) { return n, nil }
func (n *oneNode) DialMaintenance(context.Context, string) (talos.Maintenance, error) {
	return nil, errors.New("no node is in maintenance mode")
}
func (n *oneNode) Version(context.Context) (string, error) { return "v1.13.9", nil }
func (n *oneNode) Status(context.Context) (talos.Status, error) {
	return talos.Status{Stage: "running", Ready: true}, nil
}
func (n *oneNode) BootID(context.Context) (string, error) { return "boot-1", nil }
func (n *oneNode) Close() error                           { return nil }
func (n *oneNode) Apply(context.Context, []byte, talos.Mode, bool) (talos.Applied, error) {
	n.applied++

	if n.onApply != nil {
		n.onApply()
	}

	return talos.Applied{Mode: "NO_REBOOT"}, nil
}

var w1 = []rollout.Step{{Node: plan.Node{Name: "w1", Role: "worker", Action: plan.Update, ConfigChanged: true}, Address: "10.0.0.21", Version: "v1.13.9"}}

// realAlerts is the rollout's view of the real Alertmanager, selecting critical alerts.
func realAlerts(t *testing.T, base string) rollout.Alerts {
	t.Helper()

	c, err := alertmanager.New(base, []string{`severity="critical"`}, nil)
	if err != nil {
		t.Fatal(err)
	}

	return alertsOf{c}
}

func TestRealAlertmanager_AFiringAlertHoldsTheRolloutUntilItIsResolved(t *testing.T) {
	base := realAlertmanager(t)
	down := map[string]string{"alertname": "NodeDown", "severity": "critical", "instance": "10.0.0.9:9100"}
	postAlert(t, base, down, false)
	// An alert the matchers do not select holds nothing.
	postAlert(t, base, map[string]string{"alertname": "Watchdog", "severity": "none"}, false)

	var lines []string

	var mu sync.Mutex

	o := rollout.Options{Mode: talos.ModeAuto, Parallel: 1, CallTimeout: 5 * time.Second, GateTimeout: 2 * time.Second, GateInterval: 100 * time.Millisecond, Alerts: realAlerts(t, base)}
	o.Progress = func(p rollout.Progress) {
		mu.Lock()
		defer mu.Unlock()

		lines = append(lines, p.What)
	}

	n := &oneNode{}

	r := rollout.Run(context.Background(), n, "lab", "hash", w1, o)

	want := `alerts held the rollout before w1: after 2s: firing: NodeDown{instance="10.0.0.9:9100", severity="critical"}`
	if r.Stopped != want || n.applied != 0 {
		t.Errorf("stopped %q, applied %d\nwant    %q, none applied", r.Stopped, n.applied, want)
	}

	if joined := strings.Join(lines, "\n"); !strings.Contains(joined, "alerts before w1: waiting up to 2s (firing: NodeDown{") || strings.Contains(joined, "s3cr3t") {
		t.Errorf("progress %q, want the wait said with the alert, never its annotations", lines)
	}

	// Resolved while the gate waits, the alert lets the rollout go on.
	time.AfterFunc(time.Second, func() { postAlert(t, base, down, true) })

	o.GateTimeout = 30 * time.Second

	r = rollout.Run(context.Background(), n, "lab", "hash", w1, o)
	if r.Stopped != "" || n.applied != 1 || r.Nodes[0].Outcome != rollout.Applied {
		t.Errorf("stopped %q, applied %d, node %+v: want w1 applied once the alert is resolved", r.Stopped, n.applied, r.Nodes[0])
	}
}

func TestRealAlertmanager_TheNodeIsSilencedDuringItsStepAndTheSilenceExpiredAfter(t *testing.T) {
	base := realAlertmanager(t)

	var during []string

	n := &oneNode{onApply: func() { during = silences(t, base) }}

	o := rollout.Options{Mode: talos.ModeAuto, Parallel: 1, CallTimeout: 5 * time.Second, GateTimeout: 5 * time.Second, GateInterval: 100 * time.Millisecond, Alerts: realAlerts(t, base), Silence: true}

	r := rollout.Run(context.Background(), n, "lab", "hash", w1, o)
	if r.Nodes[0].Outcome != rollout.Applied {
		t.Fatalf("node %+v", r.Nodes[0])
	}

	want := []string{`active instance=10\.0\.0\.21(:.*)? regex=true`, "active node=w1 regex=false"}
	if !slices.Equal(during, want) {
		t.Errorf("silences during the step:\n%q\nwant\n%q", during, want)
	}

	after := []string{`expired instance=10\.0\.0\.21(:.*)? regex=true`, "expired node=w1 regex=false"}
	if got := silences(t, base); !slices.Equal(got, after) {
		t.Errorf("silences after the step:\n%q\nwant\n%q", got, after)
	}
}
