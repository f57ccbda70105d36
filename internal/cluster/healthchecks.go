package cluster

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/talops/talops/internal/health"
)

// DefaultHealthTimeout is how long a check may take to become true when it names none.
const DefaultHealthTimeout = 5 * time.Minute

// maxHealthTimeout bounds a check's timeout: longer than this is a rollout left hanging.
const maxHealthTimeout = 2 * time.Hour

// HealthChecks compiles the cluster's health checks. Load has checked them, so an error
// here is not expected.
func (c *Cluster) HealthChecks() ([]health.Check, error) {
	out := make([]health.Check, 0, len(c.Spec.HealthChecks))

	for i, hc := range c.Spec.HealthChecks {
		x, err := health.Compile(hc.Expr)
		if err != nil {
			return nil, inputErrorf(c.Path(FileName), c.Line(healthAt(i)+".expr"), healthAt(i)+".expr", "%v", err)
		}

		timeout, err := healthTimeout(hc.Timeout)
		if err != nil {
			return nil, inputErrorf(c.Path(FileName), c.Line(healthAt(i)+".timeout"), healthAt(i)+".timeout", "%v", err)
		}

		out = append(out, health.Check{
			Name: hc.Name, APIVersion: hc.APIVersion, Kind: hc.Kind, Namespace: hc.Namespace,
			ObjectName: hc.ObjectName, Selector: hc.Selector, Expr: x, Timeout: timeout,
		})
	}

	return out, nil
}

func healthAt(i int) string { return "healthChecks[" + strconv.Itoa(i) + "]" }

func healthTimeout(s string) (time.Duration, error) {
	if s == "" {
		return DefaultHealthTimeout, nil
	}

	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > maxHealthTimeout {
		return 0, fmt.Errorf("%q is not a timeout: use a duration above zero and at most 2h, such as 10m", s)
	}

	return d, nil
}

// healthChecks checks the healthChecks: list, each problem on its line.
func (k *checker) healthChecks() {
	names := map[string]int{}

	for i, hc := range k.c.Spec.HealthChecks {
		at := healthAt(i)

		switch first, dup := names[hc.Name]; {
		case hc.Name == "":
			k.bad(at+".name", "is required: it names the check in plans and reports")
		case !isDNSLabel(hc.Name):
			k.bad(at+".name", "must be a DNS-1123 label (lower-case letters, digits and dashes), got %q", hc.Name)
		case dup:
			k.bad(at+".name", "duplicate check name %q (also %s)", hc.Name, healthAt(first))
		default:
			names[hc.Name] = i
		}

		if gv, err := schema.ParseGroupVersion(hc.APIVersion); hc.APIVersion == "" || err != nil || gv.Version == "" {
			k.bad(at+".apiVersion", "must be a Kubernetes apiVersion such as v1, apps/v1 or ceph.rook.io/v1, got %q", hc.APIVersion)
		}

		if !isKind(hc.Kind) {
			k.bad(at+".kind", "must be a Kubernetes kind such as Deployment or CephCluster, got %q", hc.Kind)
		}

		if hc.ObjectName != "" && hc.Selector != "" {
			k.bad(at+".selector", "objectName and selector exclude each other: a check names one object or selects several")
		}

		if hc.Selector != "" {
			if _, err := labels.Parse(hc.Selector); err != nil {
				k.bad(at+".selector", "is not a label selector (such as app=longhorn-manager): %v", err)
			}
		}

		if _, err := health.Compile(hc.Expr); err != nil {
			k.bad(at+".expr", "%v", err)
		}

		if _, err := healthTimeout(hc.Timeout); err != nil {
			k.bad(at+".timeout", "%v", err)
		}
	}
}

// kindRe is a Kubernetes kind: an upper-case letter, then letters and digits, at most
// maxLabel in all (checked apart, see nameRe).
var kindRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`) })

func isKind(s string) bool { return len(s) <= maxLabel && kindRe().MatchString(s) }
