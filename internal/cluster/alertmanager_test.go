package cluster_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/testlab/hostile"
)

func TestLoad_AlertmanagerSectionIsRead(t *testing.T) {
	c, err := cluster.Load("lab", files(minimal+"alertmanager:\n  url: http://alertmanager.monitoring:9093\n  matchers:\n    - severity=\"critical\"\n    - alertname=~\"Kube.*|Ceph.*\"\n  silence: true\n"))
	if err != nil {
		t.Fatal(err)
	}

	a := c.Spec.Alertmanager
	if a == nil || a.URL != "http://alertmanager.monitoring:9093" || !slices.Equal(a.Matchers, []string{`severity="critical"`, `alertname=~"Kube.*|Ceph.*"`}) || !a.Silence {
		t.Errorf("alertmanager section read as %+v", a)
	}
}

func TestLoad_AlertmanagerSectionProblemsArePlacedAtTheirLine(t *testing.T) {
	for _, tc := range []struct {
		name, section, want string
	}{
		{"no url", "alertmanager:\n  silence: true\n", `lab/talops.yaml:19: alertmanager.url: must be an http:// or https:// URL`},
		{"not http", "alertmanager:\n  url: ftp://am\n", `lab/talops.yaml:20: alertmanager.url: must be an http:// or https:// URL without credentials or query, such as http://alertmanager.monitoring:9093, got "ftp://am"`},
		{"credentials, not repeated", "alertmanager:\n  url: http://admin:hunter2@am:9093\n", `lab/talops.yaml:20: alertmanager.url: must not hold credentials`},
		{"no operator", "alertmanager:\n  url: http://am:9093\n  matchers: [severity]\n", `lab/talops.yaml:21: alertmanager.matchers[0]: "severity" must be a matcher such as severity="critical"`},
		{"bad regex", "alertmanager:\n  url: http://am:9093\n  matchers:\n    - ok=\"1\"\n    - alertname=~\"(\"\n", `lab/talops.yaml:23: alertmanager.matchers[1]: "alertname=~\"(\"" the value of alertname is not a regular expression`},
		{"bad quoting", "alertmanager:\n  url: http://am:9093\n  matchers: ['a=\"x']\n", `alertmanager.matchers[0]: "a=\"x" the value of a is not a well-quoted string`},
		{"typo in a key", "alertmanager:\n  url: http://am:9093\n  silense: true\n", "lab/talops.yaml:21: alertmanager.silense: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cluster.Load("lab", files(minimal+tc.section))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\ndoes not contain\n%s", err, tc.want)
			}

			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error repeats the password: %v", err)
			}
		})
	}
}

func TestParseMatcher_SplitsNameOperatorAndUnquotedValue(t *testing.T) {
	for in, want := range map[string][3]string{
		`severity="critical"`:        {"severity", "=", "critical"},
		`namespace != "kube-system"`: {"namespace", "!=", "kube-system"},
		`alertname=~Kube.*`:          {"alertname", "=~", "Kube.*"},
		`job!~"node|kubelet"`:        {"job", "!~", "node|kubelet"},
	} {
		n, op, v, err := cluster.ParseMatcher(in)
		if err != nil || [3]string{n, op, v} != want {
			t.Errorf("%s: %q %q %q %v, want %q", in, n, op, v, err, want)
		}
	}
}

func FuzzParseMatcher(f *testing.F) {
	for _, s := range []string{`severity="critical"`, `a=~"(x|y)+"`, `b!~c`, `x="\"`, `=`, `a=~"` + strings.Repeat("(", 500) + `"`} {
		f.Add(s)
	}

	f.Fuzz(func(t *testing.T, s string) {
		hostile.Bounded(t, func() {
			name, op, _, err := cluster.ParseMatcher(s)
			if err == nil && (name == "" || op == "") {
				t.Fatalf("%q parsed without a name or an operator", s)
			}
		})
	})
}
