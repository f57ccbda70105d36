package cli_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/alertmanager"
	"github.com/talops/talops/internal/cluster"
)

// fakeAlertmanager answers as the Alertmanager API v2 does: the firing alerts it holds,
// and the silences posted and deleted, recorded.
type fakeAlertmanager struct {
	mu     sync.Mutex
	firing string // the JSON of GET /api/v2/alerts
	calls  []string
}

func (f *fakeAlertmanager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()

	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v2/alerts":
		f.calls = append(f.calls, "alerts "+r.URL.Query().Get("filter"))
		_, _ = io.WriteString(w, f.firing)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v2/silences":
		var s alertmanager.Silence
		_ = json.NewDecoder(r.Body).Decode(&s)

		f.calls = append(f.calls, "silence "+s.Matchers[0].Name+"="+s.Matchers[0].Value+" by "+s.CreatedBy)
		_, _ = io.WriteString(w, `{"silenceID":"`+s.Matchers[0].Name+`"}`)
	case r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, "/api/v2/silence/"):
		f.calls = append(f.calls, "expire "+strings.TrimPrefix(r.URL.Path, "/api/v2/silence/"))
	default:
		http.NotFound(w, r)
	}
}

// withAlertmanager adds the alertmanager: section, pointing at a fake answering as f.
func withAlertmanager(t *testing.T, l *applyLab, f *fakeAlertmanager) {
	t.Helper()

	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)

	l.files["talops.yaml"] = append(l.files["talops.yaml"], []byte("alertmanager:\n  url: "+srv.URL+"\n  matchers: ['severity=\"critical\"']\n  silence: true\n")...)
	l.h.deps.Alertmanager = func(u string, m []string) (*alertmanager.Client, error) { return alertmanager.New(u, m, srv.Client()) }
}

func TestApply_AFiringAlertHoldsTheRolloutWithNoNodeTouched(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	addMotd(l)

	f := &fakeAlertmanager{firing: `[{"labels":{"alertname":"NodeDown","severity":"critical"},"annotations":{"runbook":"token=s3cr3t"}}]`}
	withAlertmanager(t, l, f)

	l.h.deps.GateTimeout, l.h.deps.GateInterval = time.Second, 1

	k := &labKube{l: l, objects: cephIs("HEALTH_OK")}

	err := l.apply("--kubeconfig", withKube(t, l, k))
	if err == nil {
		t.Fatal("apply went on with an alert firing")
	}

	want := `talops: apply stopped before the next node: alerts held the rollout before k8s-node4: after 1s: firing: NodeDown{severity="critical"}`
	if out := l.h.stderr.String(); !strings.Contains(out, want) || strings.Contains(out+l.h.stdout.String(), "s3cr3t") {
		t.Errorf("stderr:\n%s\nwant:\n%s\nand no annotation", out, want)
	}

	if l.nodes["k8s-node4"].Boots() != 0 || slices.ContainsFunc(f.calls, func(c string) bool { return strings.HasPrefix(c, "silence") }) {
		t.Errorf("k8s-node4 was touched: boots %d, Alertmanager calls %q", l.nodes["k8s-node4"].Boots(), f.calls)
	}
}

func TestApply_TheNodeIsSilencedWhileItChangesAndTheSilencesExpiredAfter(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	addMotd(l)

	f := &fakeAlertmanager{firing: `[]`}
	withAlertmanager(t, l, f)

	k := &labKube{l: l, objects: cephIs("HEALTH_OK")}

	if err := l.apply("--kubeconfig", withKube(t, l, k)); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	c, err := cluster.Parse(l.files["talops.yaml"])
	if err != nil {
		t.Fatal(err)
	}

	address := c.Spec.Nodes[c.NodeIndex("k8s-node4")].Address

	want := []string{
		`alerts severity="critical"`,
		`silence instance=` + regexp.QuoteMeta(address) + `(:.*)? by talops`,
		"silence node=k8s-node4 by talops",
		"expire instance",
		"expire node",
	}
	if !slices.Equal(f.calls, want) {
		t.Errorf("Alertmanager calls:\n%s\nwant:\n%s", strings.Join(f.calls, "\n"), strings.Join(want, "\n"))
	}
}
