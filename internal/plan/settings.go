package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/health"
)

// Setting is one input apply acts on besides a node's machine config: where a node
// answers, its VM, where the Proxmox token is sent, where images come from. The plan's hash
// binds every one of them, so that a merged talops.yaml cannot move them past a review.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// SettingChange is a setting that differs between the two states ("" where it is unset).
type SettingChange struct {
	Key  string `json:"key"`
	From string `json:"from"`
	To   string `json:"to"`
}

// String is "proxmox.vmid 101 → 102", "proxmox.hostpci[0] set to 0000:01:00",
// "proxmox.mac BC:24:11:00:00:01 removed".
func (c SettingChange) String() string {
	switch {
	case c.From == "":
		return fmt.Sprintf("%s set to %s", c.Key, c.To)
	case c.To == "":
		return fmt.Sprintf("%s %s removed", c.Key, c.From)
	}

	return fmt.Sprintf("%s %s → %s", c.Key, c.From, c.To)
}

// ClusterSettings are the cluster's destinations: the Proxmox API (its URL, the CA it is
// trusted by, by content, and its storage) and the Image Factory.
func ClusterSettings(c *cluster.Cluster) []Setting {
	out := []Setting{{Key: "imageFactory", Value: c.ImageFactory()}}

	p := c.Spec.ProxmoxAPI
	if p == nil {
		return out
	}

	out = append(out, Setting{Key: "proxmox.url", Value: p.URL})

	if p.CAFile != "" {
		data, _ := c.File(p.CAFile)
		sum := sha256.Sum256(data)
		out = append(out, Setting{Key: "proxmox.caFile", Value: p.CAFile + " (sha256 " + hex.EncodeToString(sum[:])[:12] + ")"})
	}

	return append(out, Setting{Key: "proxmox.storage", Value: p.Storage})
}

// NodeSettings are node n's address and every field of its proxmox: section.
func NodeSettings(n cluster.Node) []Setting {
	out := []Setting{{Key: "address", Value: n.Address}}

	if n.Proxmox == nil {
		return out
	}

	var doc yaml.Node
	if data, err := yaml.Marshal(n.Proxmox); err == nil && yaml.Unmarshal(data, &doc) == nil && len(doc.Content) == 1 {
		// Marshalled, so that a field added to the section is bound without a change here.
		flatten(&out, "proxmox", doc.Content[0])
	}

	return out
}

// flatten appends every scalar under node as a setting keyed by its path.
func flatten(out *[]Setting, path string, node *yaml.Node) {
	switch node.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(node.Content); i += 2 {
			flatten(out, path+"."+node.Content[i].Value, node.Content[i+1])
		}
	case yaml.SequenceNode:
		for i, item := range node.Content {
			flatten(out, path+"["+strconv.Itoa(i)+"]", item)
		}
	default:
		*out = append(*out, Setting{Key: path, Value: node.Value})
	}
}

// settingChanges lists what differs from old to new, in new's order then old's; known is
// false for a state that does not know its settings (one read from the nodes).
func settingChanges(old, new []Setting, known bool) []SettingChange {
	if !known {
		return nil
	}

	was := map[string]string{}
	for _, s := range old {
		was[s.Key] = s.Value
	}

	is := map[string]bool{}

	var out []SettingChange

	for _, s := range new {
		is[s.Key] = true

		if from := was[s.Key]; from != s.Value {
			out = append(out, SettingChange{Key: s.Key, From: from, To: s.Value})
		}
	}

	for _, s := range old {
		if !is[s.Key] && s.Value != "" {
			out = append(out, SettingChange{Key: s.Key, From: s.Value})
		}
	}

	return out
}

// settingReasons are the reasons a node's setting changes give, one per change.
func settingReasons(changes []SettingChange) []string {
	out := make([]string, 0, len(changes))

	for _, c := range changes {
		why := ""

		switch {
		case c.Key == "address":
			why = ": apply reaches the node there"
		case strings.HasPrefix(c.Key, "proxmox.node"), strings.HasPrefix(c.Key, "proxmox.vmid"):
			why = ": apply --proxmox-reset and --proxmox-vms act on this VM"
		case strings.HasPrefix(c.Key, "proxmox."):
			why = ": apply --proxmox-vms creates a missing VM with it"
		}

		out = append(out, c.String()+why)
	}

	return out
}

// HealthChecks describes the cluster's health checks, one each, as a plan shows them:
// `ceph: CephCluster rook-ceph/rook-ceph (ceph.rook.io/v1), object.status.ceph.health
// == "HEALTH_OK", within 10m`. The expression is as written, never normalised: CEL has
// comments, so a line break or a space can change what it means. One of several lines
// comes last, after "expression:" and a line break.
func HealthChecks(c *cluster.Cluster) []string {
	out := make([]string, 0, len(c.Spec.HealthChecks))

	for _, hc := range c.Spec.HealthChecks {
		what := health.Check{Kind: hc.Kind, Namespace: hc.Namespace, ObjectName: hc.ObjectName, Selector: hc.Selector}.Objects()

		timeout := hc.Timeout
		if timeout == "" {
			timeout = cluster.DefaultHealthTimeout.String()
		}

		expr := strings.TrimRight(hc.Expr, "\n") // a block scalar's own line break
		if strings.ContainsAny(expr, "\n\r") {
			out = append(out, fmt.Sprintf("%s: %s (%s), within %s, expression:\n%s", hc.Name, what, hc.APIVersion, timeout, expr))

			continue
		}

		out = append(out, fmt.Sprintf("%s: %s (%s), %s, within %s", hc.Name, what, hc.APIVersion, expr, timeout))
	}

	return out
}

// AlertsOf describes the cluster's alertmanager: section as a plan shows it: the
// Alertmanager and the alerts that hold apply, then the silences it holds (none without a
// section).
func AlertsOf(c *cluster.Cluster) []string {
	a := c.Spec.Alertmanager
	if a == nil {
		return nil
	}

	which := "every active alert"
	if len(a.Matchers) > 0 {
		which = "alerts matching " + strings.Join(a.Matchers, ", ")
	}

	out := []string{fmt.Sprintf("Alertmanager %s: %s, neither silenced nor inhibited, hold the rollout", a.URL, which)}
	if a.Silence {
		out = append(out, `each node silenced while it changes: instance=~"<address>(:.*)?", node="<Kubernetes node>"`)
	}

	return out
}
