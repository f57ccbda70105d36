package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/talops/talops/internal/backup"
)

// RecoveryView is what recover prints: its plan and, once it ran, how long it took.
type RecoveryView struct {
	Plan backup.RecoveryPlan
	// Ran is false while the plan is only shown.
	Ran  bool
	Took time.Duration
}

var recoveryViews = Views[RecoveryView]{FormatText: stringView(RecoveryText), FormatJSON: RecoveryJSON}

// RecoveryFormats are the formats of a recovery.
var RecoveryFormats = recoveryViews.Formats()

// WriteRecovery writes a recovery in format.
func WriteRecovery(w io.Writer, format string, v RecoveryView) error {
	return recoveryViews.Write(w, format, v)
}

// RecoveryText is the recovery as text: what is restored and lost, each node in the order
// it is taken and what is done to it, a summary counted from the plan.
func RecoveryText(v RecoveryView) string {
	var b strings.Builder

	p := v.Plan

	switch m := p.Backup; {
	case p.Mode == backup.RecoverNode:
		fmt.Fprintf(&b, "Recovery of control plane %s of cluster %s: no backup is restored, etcd keeps its data\n", firstName(p), p.Cluster)
	case m != nil:
		fmt.Fprintf(&b, "Recovery of cluster %s from backup %s (%s)\n", p.Cluster, m.Name, p.Store)
		fmt.Fprintf(&b, "  etcd at revision %d, taken %s from %s, %s old: what was written since is lost\n", m.Revision, m.Time.UTC().Format("2006-01-02 15:04:05 UTC"), m.Node, age(p.Age))
	}

	for _, why := range p.Why {
		fmt.Fprintf(&b, "  %s\n", why)
	}

	for i, n := range p.Nodes {
		fmt.Fprintf(&b, "%d. %s (%s, %s): %s\n", i+1, n.Name, n.Role, n.Address, n.State)

		if len(n.Actions) == 0 {
			b.WriteString("     left as it is\n")

			continue
		}

		fmt.Fprintf(&b, "     %s\n", strings.Join(n.Actions, " → "))
	}

	changes := p.Changes()
	left := "they are"
	if len(p.Nodes)-changes == 1 {
		left = "it is"
	}

	fmt.Fprintf(&b, "Plan: %s to recover, %d left as %s\n", plural(changes, "node"), len(p.Nodes)-changes, left)

	if v.Ran {
		fmt.Fprintf(&b, "Recovered in %s\n", v.Took.Round(time.Second))
	}

	return b.String()
}

func firstName(p backup.RecoveryPlan) string {
	if len(p.Nodes) == 0 {
		return "?"
	}

	return p.Nodes[0].Name
}

// age is a duration as a reader takes it in: days and hours, minutes and seconds.
func age(d time.Duration) string {
	d = d.Round(time.Second)
	if d >= 24*time.Hour {
		days := d / (24 * time.Hour)

		return fmt.Sprintf("%dd%s", days, (d - days*24*time.Hour).String())
	}

	return d.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}

	return fmt.Sprintf("%d %ss", n, what)
}

type recoveryBackupJSON struct {
	Name       string    `json:"name"`
	Store      string    `json:"store"`
	Time       time.Time `json:"time"`
	Node       string    `json:"node"`
	Revision   int64     `json:"revision"`
	AgeSeconds int64     `json:"ageSeconds"`
}

type recoveryNodeJSON struct {
	Name    string   `json:"name"`
	Address string   `json:"address"`
	Role    string   `json:"role"`
	State   string   `json:"state"`
	Actions []string `json:"actions"`
}

// RecoveryJSON is the recovery as JSON: the plan's fields, whether it ran and how long
// it took.
func RecoveryJSON(w io.Writer, v RecoveryView) error {
	p := v.Plan

	out := struct {
		Cluster     string              `json:"cluster"`
		Mode        string              `json:"mode"`
		Backup      *recoveryBackupJSON `json:"backup"`
		Why         []string            `json:"why"`
		Nodes       []recoveryNodeJSON  `json:"nodes"`
		Changes     int                 `json:"changes"`
		Ran         bool                `json:"ran"`
		TookSeconds int64               `json:"tookSeconds"`
	}{Cluster: p.Cluster, Mode: p.Mode, Why: p.Why, Nodes: []recoveryNodeJSON{}, Changes: p.Changes(), Ran: v.Ran, TookSeconds: int64(v.Took.Round(time.Second) / time.Second)}

	if out.Why == nil {
		out.Why = []string{}
	}

	if m := p.Backup; m != nil {
		out.Backup = &recoveryBackupJSON{Name: m.Name, Store: p.Store, Time: m.Time.UTC(), Node: m.Node, Revision: m.Revision, AgeSeconds: int64(p.Age.Round(time.Second) / time.Second)}
	}

	for _, n := range p.Nodes {
		actions := n.Actions
		if actions == nil {
			actions = []string{}
		}

		out.Nodes = append(out.Nodes, recoveryNodeJSON{Name: n.Name, Address: n.Address, Role: n.Role, State: n.State, Actions: actions})
	}

	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")

	return enc.Encode(out)
}
