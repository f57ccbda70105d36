package health

import (
	"encoding/json"
	"strings"
	"testing"
)

func object(t *testing.T, js string) map[string]any {
	t.Helper()

	var out map[string]any
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		t.Fatal(err)
	}

	return out
}

const cephWarn = `{"apiVersion":"ceph.rook.io/v1","kind":"CephCluster","metadata":{"name":"rook-ceph"},"status":{"ceph":{"health":"HEALTH_WARN"}}}`

func TestEval_SaysWhatTheExpressionSaw(t *testing.T) {
	x, err := Compile(`object.status.ceph.health == "HEALTH_OK"`)
	if err != nil {
		t.Fatal(err)
	}

	v := x.Eval(object(t, cephWarn))
	if v.OK || v.Err != nil || strings.Join(v.Seen, "; ") != `object.status.ceph.health = "HEALTH_WARN"` {
		t.Errorf("verdict %+v", v)
	}

	v = x.Eval(object(t, strings.Replace(cephWarn, "HEALTH_WARN", "HEALTH_OK", 1)))
	if !v.OK || v.Err != nil {
		t.Errorf("a healthy cluster fails: %+v", v)
	}
}

func TestEval_DeploymentReplicasAndListMacros(t *testing.T) {
	for _, tc := range []struct {
		name, expr, object string
		ok                 bool
		seen               string
	}{
		{
			name:   "available replicas short of the desired count",
			expr:   `object.status.availableReplicas == object.spec.replicas`,
			object: `{"spec":{"replicas":3},"status":{"availableReplicas":2}}`,
			seen:   "object.status.availableReplicas = 2; object.spec.replicas = 3",
		},
		{
			name:   "every condition true",
			expr:   `object.status.conditions.all(c, c.status == "True")`,
			object: `{"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Synced","status":"True"}]}}`,
			ok:     true,
			seen:   "object.status.conditions = a list of 2",
		},
		{
			name:   "a field tested with has() that is absent",
			expr:   `has(object.status.robustness) && object.status.robustness == "healthy"`,
			object: `{"status":{}}`,
			seen:   "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := Compile(tc.expr)
			if err != nil {
				t.Fatal(err)
			}

			v := x.Eval(object(t, tc.object))
			if v.OK != tc.ok || v.Err != nil || strings.Join(v.Seen, "; ") != tc.seen {
				t.Errorf("verdict %+v, want ok %v, seen %q", v, tc.ok, tc.seen)
			}
		})
	}
}

func TestEval_AMissingFieldFailsTheCheckWithAReason(t *testing.T) {
	x, err := Compile(`object.status.ceph.health == "HEALTH_OK"`)
	if err != nil {
		t.Fatal(err)
	}

	v := x.Eval(object(t, `{"status":{}}`))
	if v.OK || v.Err == nil || !strings.Contains(v.Err.Error(), "no such key: ceph") {
		t.Errorf("verdict %+v", v)
	}
}

func TestCompile_RefusesWhatCannotBeACheck(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"", "is empty"},
		{"object.status.phase ==", "Syntax error"},
		{`"healthy"`, "gives a string, not a bool"},
		{"size(object.spec) + 1", "gives a int, not a bool"},
		{"obj.status.ready", "undeclared reference to 'obj'"},
	} {
		_, err := Compile(tc.expr)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Compile(%q) = %v, want one line with %q", tc.expr, err, tc.want)
		}
	}
}

func FuzzCompile(f *testing.F) {
	f.Add(`object.status.ceph.health == "HEALTH_OK"`)
	f.Add(`object.status.conditions.exists(c, c.type == "Ready" && c.status == "True")`)

	f.Fuzz(func(t *testing.T, expr string) {
		x, err := Compile(expr)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}

			return
		}

		// Whatever compiles evaluates without a panic, over an empty object and a real one.
		x.Eval(map[string]any{})
		x.Eval(map[string]any{"status": map[string]any{"ceph": map[string]any{"health": "HEALTH_OK"}}})
	})
}
