package cluster

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Alertmanager is the alertmanager: section: the Alertmanager apply consults before each
// node that changes, and where it silences the node it reboots or upgrades.
type Alertmanager struct {
	// URL is the Alertmanager's base URL (http or https, without credentials), the one
	// its API v2 lives under: URL + /api/v2/alerts.
	URL string `yaml:"url"`
	// Matchers select the alerts that hold a rollout, each in Alertmanager's matcher
	// syntax (severity="critical", alertname=~"Kube.*"), all of them together; none: every
	// active alert that is neither silenced nor inhibited.
	Matchers []string `yaml:"matchers,omitempty"`
	// Silence holds a silence for each node while its step runs (matchers per node:
	// instance=~"<address>(:.*)?", then node="<Kubernetes node name>").
	Silence bool `yaml:"silence,omitempty"`
}

// matcherRe is one matcher in Alertmanager's syntax: a label name, an operator, a value
// quoted or bare.
var matcherRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*(.*?)\s*$`)
})

// ParseMatcher splits an Alertmanager matcher into its label name, operator and value
// (unquoted), or says why it is none.
func ParseMatcher(s string) (name, op, value string, err error) {
	m := matcherRe().FindStringSubmatch(s)
	if m == nil {
		return "", "", "", errors.New(`must be a matcher such as severity="critical" or alertname=~"Kube.*"`)
	}

	name, op, value = m[1], m[2], m[3]
	if strings.HasPrefix(value, `"`) {
		if value, err = strconv.Unquote(value); err != nil {
			return "", "", "", fmt.Errorf("the value of %s is not a well-quoted string", name)
		}
	} else if strings.ContainsAny(value, "\",{}") {
		return "", "", "", fmt.Errorf("the value of %s must be quoted", name)
	}

	if op == "=~" || op == "!~" {
		if _, rerr := regexp.Compile(value); rerr != nil {
			return "", "", "", fmt.Errorf("the value of %s is not a regular expression: %w", name, rerr)
		}
	}

	return name, op, value, nil
}

// alertmanager checks the alertmanager: section, each problem on its line.
func (k *checker) alertmanager() {
	a := k.c.Spec.Alertmanager
	if a == nil {
		return
	}

	u, err := url.Parse(a.URL)

	switch {
	case err == nil && u.User != nil:
		// Not repeated: it holds a password, or looks like it.
		k.bad("alertmanager.url", "must not hold credentials: talops reaches the Alertmanager without any")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "":
		k.bad("alertmanager.url", "must be an http:// or https:// URL without credentials or query, such as http://alertmanager.monitoring:9093, got %q", a.URL)
	}

	for i, m := range a.Matchers {
		if _, _, _, err := ParseMatcher(m); err != nil {
			k.bad("alertmanager.matchers["+strconv.Itoa(i)+"]", "%q %v", m, err)
		}
	}
}
