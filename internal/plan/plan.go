// Package plan compares the current state of a cluster with the desired one and says,
// per node, what applying would do: create, update, reboot, upgrade, remove or nothing.
// It is pure: rendered configs in, a typed plan out; views live in internal/report.
package plan

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/textdiff"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
)

// Action is what applying does to a node.
type Action string

// Actions, in the order the summary lists them.
const (
	Create  Action = "create"
	Upgrade Action = "upgrade"
	Reboot  Action = "reboot"
	Update  Action = "update"
	Remove  Action = "remove"
	// Unknown is a node whose running state could not be read: what applying does to it
	// cannot be told (it is down, or answers with something that is no config).
	Unknown Action = "unknown"
	Noop    Action = "noop"
)

// Actions lists every action in summary order.
var Actions = []Action{Create, Upgrade, Reboot, Update, Remove, Unknown, Noop}

// Redacted stands in for every secret field in a diff.
const Redacted = "<redacted>"

// NodeState is one node in one state of the repository (or as it runs).
type NodeState struct {
	Name string
	Role cluster.Role
	// Schematic is the schematic name from talops.yaml ("" for the vanilla image).
	Schematic string
	// Installer is the installer image the node should run (version and schematic).
	Installer string
	// SchematicKernelArgs are the kernel arguments the node's schematic gives the installer
	// it runs (nil: none, or not known, as for a node read over the Talos API).
	SchematicKernelArgs []string
	Config              coreconfig.Provider
	// Encode returns Config encoded without comments, computed once by whoever holds it
	// (a rendered node's Machine.Bytes); nil makes the plan encode Config itself.
	Encode func() ([]byte, error)
	// Broken says why the node's state is unknown: it does not render, or it could not be
	// read from the node (then Config is nil).
	Broken string
	// Unreadable is set with Broken for a running node that could not be read: its plan
	// is Unknown, not an update.
	Unreadable bool
	// TalosVersion is the version this node runs when it differs per node (a state read
	// from the nodes); "" means the state's TalosVersion.
	TalosVersion string
	// Found, for a running node talops.yaml does not name, says where it was found (the
	// etcd member list, the Kubernetes nodes); Address is where it answers ("": unknown).
	Found   string
	Address string
	// Unreachable, for a found node, says it did not answer talops' call or has no known
	// address: apply can only remove what the rest of the cluster keeps of it.
	Unreachable bool
	// KubeNode, for a node read from the cluster, is the name of its Node object in
	// Kubernetes as the node says it ("": it did not say).
	KubeNode string
	// Settings are the node's inputs besides its config (NodeSettings; nil: unknown, as
	// for a node read from the cluster).
	Settings []Setting
}

// State is the cluster in one state.
type State struct {
	TalosVersion string
	// KubernetesVersion is talops.yaml's kubernetesVersion.
	KubernetesVersion string
	Nodes             []NodeState
	// SecretsFingerprint identifies the secrets bundle (a hash, never the values).
	SecretsFingerprint string
	// EtcdMembers are the hostnames etcd lists, for a state read from the nodes (nil when
	// unknown).
	EtcdMembers []string
	// Settings are the cluster's destinations (ClusterSettings; nil: unknown, as for the
	// running nodes).
	Settings []Setting
	// HealthChecks say what apply checks before each node and after the last
	// (HealthChecks of talops.yaml).
	HealthChecks []string
	// Alerts say what the alertmanager: section of talops.yaml has apply do (AlertsOf).
	Alerts []string
	// Maintenance describes the maintenance windows (MaintenanceOf).
	Maintenance string
	// ApplyOptions are the options of the apply: section that widen what apply does
	// (ApplyOptionsOf).
	ApplyOptions []string
	// Inputs are the files the state is made from, as read (Cluster.Inputs; nil: none,
	// as for the running nodes): the hash binds the desired state's bytes.
	Inputs []cluster.Input
}

// InstallerChange describes an installer change (an upgrade).
type InstallerChange struct {
	FromVersion   string `json:"fromVersion"`
	ToVersion     string `json:"toVersion"`
	FromInstaller string `json:"fromInstaller"`
	ToInstaller   string `json:"toInstaller"`
}

// Node is the planned change of one node.
type Node struct {
	Name    string       `json:"name"`
	Role    cluster.Role `json:"role"`
	Action  Action       `json:"action"`
	Reasons []string     `json:"reasons"`
	// Diff is a unified diff of the redacted configs ("" when unchanged).
	Diff string `json:"diff"`
	// ConfigChanged is true when the machine config differs.
	ConfigChanged bool             `json:"configChanged"`
	Upgrade       *InstallerChange `json:"upgrade,omitempty"`
	// NeedsReboot is true when the config change only takes effect after a reboot.
	NeedsReboot bool `json:"needsReboot"`
	// Unreachable is set on a removal of a node that does not answer: apply removes its
	// etcd member and its Kubernetes Node, without a drain or a reset.
	Unreachable bool `json:"unreachable,omitempty"`
	// Settings are the node's settings that change (its address, its VM), each also a
	// reason; a node whose config is unchanged still shows them.
	Settings []SettingChange `json:"settings,omitempty"`
	// LayoutOnly is set on a node whose config changes shape only (fields moved between
	// the v1alpha1 document and the documents that replace them, as talops migrate moves
	// them) while it runs every setting as before: applying it reboots and drains nothing.
	LayoutOnly bool `json:"layoutOnly,omitempty"`
}

// Changes reports whether the node changes: an action, or a setting.
func (n Node) Changes() bool { return n.Action != Noop || len(n.Settings) > 0 }

// What is the node's action as the views name it: "settings" for a node whose config is
// unchanged but whose settings are not.
func (n Node) What() string {
	switch {
	case n.Action == Noop && len(n.Settings) > 0:
		return "settings"
	case n.LayoutOnly && n.Action == Update:
		return "update (layout only)"
	case n.LayoutOnly:
		return string(n.Action) + " (its config: layout only)"
	}

	return string(n.Action)
}

// Plan is the whole cluster's change.
type Plan struct {
	Cluster string `json:"cluster"`
	Nodes   []Node `json:"nodes"`
	// Hash identifies the plan's content; apply refuses a plan whose hash differs.
	Hash string `json:"hash"`
	// Blocked is true when the desired state has errors and no plan was computed.
	Blocked bool `json:"blocked,omitempty"`
	// Bootstrap names the control plane etcd is started on: set when every control plane
	// is new (a new cluster), "" otherwise.
	Bootstrap string `json:"bootstrap,omitempty"`
	// Kubernetes is the upgrade of the Kubernetes components, when their images move.
	Kubernetes *KubernetesUpgrade `json:"kubernetes,omitempty"`
	// Settings are the cluster's destinations that change (the Proxmox API, the factory).
	Settings []SettingChange `json:"settings,omitempty"`
	// HealthChecks are what apply checks before each node that changes and after the
	// last, as talops.yaml says: bound by the hash like everything apply acts on.
	HealthChecks []string `json:"healthChecks,omitempty"`
	// Alerts are the Alertmanager gate and silences apply holds, as talops.yaml says:
	// bound by the hash like the health checks.
	Alerts []string `json:"alerts,omitempty"`
	// Maintenance is the change of the maintenance windows, when they change.
	Maintenance *MaintenanceChange `json:"maintenance,omitempty"`
	// ApplyOptions are the options talops.yaml declares that widen what apply does, as
	// the desired state says them, changed or not.
	ApplyOptions []string `json:"applyOptions,omitempty"`
	// SecretValuesChanged are the patch files (and node configs) that set a secret value
	// other than before: the diffs show such a value only as Redacted.
	SecretValuesChanged []string `json:"secretValuesChanged,omitempty"`
}

// BlockedPlan is the plan of a desired state with errors: there is nothing to apply.
func BlockedPlan(cluster string) *Plan { return &Plan{Cluster: cluster, Blocked: true} }

// Compute plans the change from current to desired. masker masks every secret value
// that survives redaction (values the user pasted outside secret fields).
// It stops at the first node after ctx ends (an interrupted plan of 500 nodes returns at
// once) with ctx's error.
func Compute(ctx context.Context, cluster string, current, desired State, masker *mask.Masker) (*Plan, error) {
	c := NewComputation(cluster, current, desired, masker)

	cur := map[string]NodeState{}
	for _, n := range current.Nodes {
		cur[n.Name] = n
	}

	var same []NodeState

	for _, n := range desired.Nodes {
		if cn, ok := cur[n.Name]; ok {
			same = append(same, cn)
			delete(cur, n.Name)
		}
	}

	if err := c.Nodes(ctx, same, desired.Nodes); err != nil {
		return nil, err
	}

	var gone []NodeState

	for _, n := range current.Nodes {
		if _, ok := cur[n.Name]; ok {
			gone = append(gone, n)
		}
	}

	if err := c.Removed(ctx, gone); err != nil {
		return nil, err
	}

	return c.Plan(), nil
}

// A Computation plans a chunk of nodes at a time, as Compute does over every node, so that
// a caller can render, plan and drop a chunk before the next: it keeps each node's plan and
// what the plan needs of its state (name, role, versions and settings), not its config.
type Computation struct {
	cluster          string
	current, desired State
	masker           *mask.Masker
	nodes            []Node
	moves            []moved
}

// NewComputation starts planning from current to desired; their nodes are given to Nodes
// and Removed, not taken from the states.
func NewComputation(cluster string, current, desired State, masker *mask.Masker) *Computation {
	current.Nodes, desired.Nodes = nil, nil

	return &Computation{cluster: cluster, current: current, desired: desired, masker: masker}
}

// Nodes plans a chunk: desired's next nodes in its order, and current's nodes of the same
// names (those it has); the others are created. It stops at the first node after ctx ends.
func (c *Computation) Nodes(ctx context.Context, current, desired []NodeState) error {
	cur := make(map[string]NodeState, len(current))
	for _, n := range current {
		cur[n.Name] = n
	}

	// Every node is planned on its own, over the cores, in desired's order.
	jobs := make([]func() (Node, error), 0, len(desired))

	for _, n := range desired {
		if cn, ok := cur[n.Name]; ok {
			jobs = append(jobs, func() (Node, error) { return changed(cn, n, c.current, c.desired, c.masker) })
		} else {
			jobs = append(jobs, func() (Node, error) { return created(n, c.masker) })
		}
	}

	nodes, err := fanOut(ctx, jobs)
	if err != nil {
		return err
	}

	c.nodes = append(c.nodes, nodes...)
	c.moves = append(c.moves, componentMoves(cur, desired)...)
	c.current.Nodes = append(c.current.Nodes, skeletons(current)...)
	c.desired.Nodes = append(c.desired.Nodes, skeletons(desired)...)

	return nil
}

// Removed plans the nodes only current has, in its order, after every chunk of Nodes.
func (c *Computation) Removed(ctx context.Context, current []NodeState) error {
	jobs := make([]func() (Node, error), 0, len(current))
	for _, n := range current {
		jobs = append(jobs, func() (Node, error) { return removed(n, c.masker) })
	}

	nodes, err := fanOut(ctx, jobs)
	if err != nil {
		return err
	}

	c.nodes = append(c.nodes, nodes...)
	c.current.Nodes = append(c.current.Nodes, skeletons(current)...)

	return nil
}

// Plan is the plan of every node given, with what needs them all: the cluster's settings
// and health checks, the bootstrap, the Kubernetes upgrade and the hash.
func (c *Computation) Plan() *Plan {
	p := &Plan{Cluster: c.cluster, Nodes: c.nodes}
	if len(p.Nodes) == 0 {
		p.Nodes = nil // a plan of no nodes has none (JSON null, as it always had)
	}

	known := c.current.Settings != nil // a state of the repository, not the running nodes

	p.Settings = settingChanges(c.current.Settings, c.desired.Settings, known)
	p.HealthChecks = c.desired.HealthChecks
	p.Alerts = c.desired.Alerts
	p.ApplyOptions = c.desired.ApplyOptions
	p.Maintenance = maintenanceChange(c.current.Maintenance, c.desired.Maintenance, known)

	if known {
		p.SecretValuesChanged = secretValuesChanged(c.current.Inputs, c.desired.Inputs)
	}

	p.bootstrap()
	p.kubernetes(c.moves, c.current)
	p.Hash = hash(p, c.desired)

	return p
}

// skeletons are what the plan's end reads of the nodes: their names, the Talos versions
// they run (the Kubernetes upgrade's refusals) and their settings (the hash).
func skeletons(nodes []NodeState) []NodeState {
	out := make([]NodeState, len(nodes))
	for i, n := range nodes {
		out[i] = NodeState{Name: n.Name, TalosVersion: n.TalosVersion, Settings: n.Settings}
	}

	return out
}

// bootstrap marks the first control plane of a new cluster: when every control plane is
// created, none has etcd yet, so apply starts it on that one.
func (p *Plan) bootstrap() {
	first := -1

	for i, n := range p.Nodes {
		if n.Role != cluster.RoleControlPlane {
			continue
		}

		// A control plane that runs (or is being removed) has etcd: not a new cluster.
		if n.Action != Create {
			return
		}

		if first < 0 {
			first = i
		}
	}

	if first < 0 {
		return
	}

	p.Bootstrap = p.Nodes[first].Name
	p.Nodes[first].Reasons = append(p.Nodes[first].Reasons, "bootstrap: etcd is started on "+p.Bootstrap)
}

// fanOut runs every job over the cores; the nodes keep the jobs' order, and the error is
// the first job's in that order, so that the outcome does not depend on scheduling.
func fanOut(ctx context.Context, jobs []func() (Node, error)) ([]Node, error) {
	if len(jobs) == 0 {
		return nil, nil // a plan of no nodes has none (JSON null, as it always had)
	}

	nodes := make([]Node, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)

	var wg sync.WaitGroup

	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)

		go func() {
			defer wg.Done()

			for i := range next {
				nodes[i], errs[i] = jobs[i]()
			}
		}()
	}

	for i := range jobs {
		if ctx.Err() != nil {
			break
		}

		next <- i
	}

	close(next)
	wg.Wait()

	if err := ctx.Err(); err != nil {
		return nil, err
	}

	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}

	return nodes, nil
}

func removed(c NodeState, masker *mask.Masker) (Node, error) {
	diff, err := diffConfigs(c.Config, nil, c.Name, masker)
	if err != nil {
		return Node{}, err
	}

	why := "node removed from talops.yaml"
	if c.Found != "" {
		why = "node runs in the cluster (" + c.Found + ") but is not in talops.yaml"
	}

	steps := RemoveSteps(c.Role)
	if c.Unreachable {
		why += "; it does not answer"
		steps = RemoveUnreachableSteps(c.Role)
	}

	return Node{
		Name: c.Name, Role: c.Role, Action: Remove, Diff: diff, ConfigChanged: c.Config != nil,
		Reasons: []string{why + ": apply --allow-remove " + steps}, Unreachable: c.Unreachable,
	}, nil
}

// RemoveUnreachableSteps is what apply does to a removed node of role that does not
// answer: it cannot be drained or reset, so only what the cluster keeps of it goes, first,
// before etcd's health is asked of the other control planes.
func RemoveUnreachableSteps(role cluster.Role) string {
	if role == cluster.RoleControlPlane {
		return "removes its etcd member and deletes its Kubernetes Node (no drain, no reset), before every other change"
	}

	return "deletes its Kubernetes Node (no drain, no reset), before every other change"
}

// RemoveSteps is what apply does to a removed node of role, after every other change.
func RemoveSteps(role cluster.Role) string {
	if role == cluster.RoleControlPlane {
		return "drains it, resets it (it leaves etcd first) and deletes its Kubernetes Node, after every other change"
	}

	return "drains it, resets it and deletes its Kubernetes Node, after every other change"
}

func created(n NodeState, masker *mask.Masker) (Node, error) {
	diff, err := diffConfigs(nil, n.Config, n.Name, masker)
	if err != nil {
		return Node{}, err
	}

	settings := settingChanges(nil, n.Settings, true)

	return Node{
		Name: n.Name, Role: n.Role, Action: Create, Diff: diff, ConfigChanged: true, Settings: settings,
		Reasons: append([]string{fmt.Sprintf("new %s node: talops sends its config over the maintenance API once the node waits in maintenance mode", n.Role)}, settingReasons(settings)...),
	}, nil
}

func changed(c, n NodeState, current, desired State, masker *mask.Masker) (Node, error) {
	if c.Broken != "" && c.Unreadable {
		return Node{Name: n.Name, Role: n.Role, Action: Unknown, Reasons: []string{masker.String("cannot tell: " + c.Broken)}}, nil
	}

	if c.Broken != "" {
		return unknownCurrent(c, n, masker)
	}

	node := Node{Name: n.Name, Role: n.Role, Action: Noop}

	var (
		oldData, newData []byte
		err              error
	)

	// Equal documents encode alike: most nodes of a plan are unchanged, and comparing
	// their documents costs a fraction of encoding them. Documents that differ may still
	// encode alike (an empty list against none), so their encodings decide.
	same := sameDocuments(c.Config, n.Config)
	if !same {
		if oldData, newData, err = encodings(c, n); err != nil {
			return Node{}, err
		}

		same = bytes.Equal(oldData, newData)
	}

	if !same {
		if node.Diff, err = diffConfigs(c.Config, n.Config, n.Name, masker); err != nil {
			return Node{}, err
		}
	}

	if c.Installer != n.Installer {
		node.Upgrade = &InstallerChange{FromVersion: current.versionOf(c), ToVersion: desired.TalosVersion, FromInstaller: c.Installer, ToInstaller: n.Installer}
		node.Reasons = append(node.Reasons, upgradeReasons(c, n, current, desired)...)
	}

	if c.Role != n.Role {
		node.Reasons = append(node.Reasons, fmt.Sprintf("role %s → %s: Talos cannot change a node's role in place; reset and re-create it", c.Role, n.Role))
	}

	if current.SecretsFingerprint != desired.SecretsFingerprint && current.SecretsFingerprint != "" && desired.SecretsFingerprint != "" {
		node.Reasons = append(node.Reasons, "cluster secrets changed")
	}

	node.Settings = settingChanges(c.Settings, n.Settings, c.Settings != nil)
	node.Reasons = append(node.Reasons, settingReasons(node.Settings)...)

	var changes changes

	if !same {
		if changes, err = changedPaths(c.Config, n.Config, oldData, newData); err != nil {
			return Node{}, err
		}
	}

	node.configChanges(c, n, changes, desired.TalosVersion)

	switch {
	case node.Upgrade != nil:
		node.Action = Upgrade
	case node.NeedsReboot:
		node.Action = Reboot
	case node.ConfigChanged:
		node.Action = Update
	}

	return node, nil
}

// configChanges records the config's changes from c to n, if any: a change of layout only,
// or whether they reboot the node (at the Talos version it runs after the plan) and why.
func (node *Node) configChanges(c, n NodeState, changes changes, talosVersion string) {
	if len(changes.paths) == 0 && changes.otherDocs == 0 || node.layoutOnly(c, n, changes) {
		return
	}

	node.ConfigChanged = true

	reboot, why := needsReboot(talosVersion, changes)
	node.NeedsReboot = reboot

	if node.Upgrade != nil {
		// The upgrade is what moves the installer: saying it again adds nothing.
		why = slices.DeleteFunc(why, func(r string) bool { return strings.HasSuffix(r, upgradeTakesEffect) })
	}

	node.Reasons = append(node.Reasons, why...)
}

// sameDocuments says whether two configs hold equal documents, in the same order.
func sameDocuments(a, b coreconfig.Provider) bool {
	if a == nil || b == nil {
		return a == b
	}

	return reflect.DeepEqual(a.Documents(), b.Documents())
}

// encodings are the canonical encodings of two states of a node: when they are equal there
// is no diff and no changed path, and neither needs to be looked for.
func encodings(c, n NodeState) ([]byte, []byte, error) {
	a, err := c.encoded()
	if err != nil {
		return nil, nil, err
	}

	b, err := n.encoded()
	if err != nil {
		return nil, nil, err
	}

	return a, b, nil
}

// encoded is the node's config encoded without comments.
func (n NodeState) encoded() ([]byte, error) {
	switch {
	case n.Encode != nil:
		return n.Encode()
	case n.Config == nil:
		return nil, nil
	}

	data, err := n.Config.EncodeBytes(encoder.WithComments(encoder.CommentsDisabled))
	if err != nil {
		return nil, fmt.Errorf("encode config of node %s: %w", n.Name, err)
	}

	return data, nil
}

func upgradeReasons(c, n NodeState, current, desired State) []string {
	var out []string

	if from, to := current.versionOf(c), desired.versionOf(n); from != to {
		out = append(out, fmt.Sprintf("Talos %s → %s", from, to))
	}

	from, to := schematicOf(c.Installer), schematicOf(n.Installer)
	if from != to {
		out = append(out, fmt.Sprintf("installer schematic %s → %s (%s → %s)", orVanilla(c.Schematic), orVanilla(n.Schematic), short(from), short(to)))
	}

	if len(out) == 0 {
		out = append(out, fmt.Sprintf("installer %s → %s", c.Installer, n.Installer))
	}

	return out
}

// versionOf is the Talos version node n runs in state s.
func (s State) versionOf(n NodeState) string {
	if n.TalosVersion != "" {
		return n.TalosVersion
	}

	return s.TalosVersion
}

// schematicOf picks the schematic ID out of an installer reference
// (factory.talos.dev/<platform>-installer/<id>:<version>).
func schematicOf(installer string) string {
	ref, _, _ := strings.Cut(installer, ":")
	if i := strings.LastIndex(ref, "/"); i >= 0 {
		return ref[i+1:]
	}

	return ref
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}

	return id
}

func orVanilla(name string) string {
	if name == "" {
		return "vanilla"
	}

	return name
}

// diffConfigs is the unified diff of two configs with every secret field redacted
// and every known secret value masked.
func diffConfigs(old, new coreconfig.Provider, name string, masker *mask.Masker) (string, error) {
	a, err := redactedYAML(old)
	if err != nil {
		return "", err
	}

	b, err := redactedYAML(new)
	if err != nil {
		return "", err
	}

	d, err := textdiff.DiffWithCustomPaths(a, b, "a/"+name+".yaml", "b/"+name+".yaml")
	if err != nil {
		return "", fmt.Errorf("diff config of node %s: %w", name, err)
	}

	return masker.String(d), nil
}

func redactedYAML(cfg coreconfig.Provider) (string, error) {
	if cfg == nil {
		return "", nil
	}

	data, err := cfg.RedactSecrets(Redacted).EncodeBytes(encoder.WithComments(encoder.CommentsDisabled))
	if err != nil {
		return "", fmt.Errorf("encode config: %w", err)
	}

	// A redacted field of bytes (a CA's key) encodes as the base64 of the marker, which
	// reads like a real key: show the marker itself.
	return strings.ReplaceAll(string(data), redactedBase64, Redacted), nil
}

// redactedBase64 is how a field of bytes that holds Redacted encodes.
var redactedBase64 = base64.StdEncoding.EncodeToString([]byte(Redacted))

// hash is the SHA-256 of the plan's content (nodes, actions, reasons and diffs), of
// every desired setting apply acts on, changed or not (a plan that changes nothing is
// still bound to where the merged talops.yaml sends the token and which VM is which), and
// of the exact bytes of every file the desired state is made from (writeInputs).
func hash(p *Plan, desired State) string {
	type nodeSettings struct {
		Name     string
		Settings []Setting
	}

	bound := make([]nodeSettings, 0, len(desired.Nodes))
	for _, n := range desired.Nodes {
		bound = append(bound, nodeSettings{n.Name, n.Settings})
	}

	content := struct {
		Cluster      string
		Nodes        []Node
		Kubernetes   *KubernetesUpgrade `json:",omitempty"`
		Settings     []SettingChange    `json:",omitempty"`
		Destinations []Setting          `json:",omitempty"`
		NodeSettings []nodeSettings     `json:",omitempty"`
		HealthChecks []string           `json:",omitempty"`
		Maintenance  *MaintenanceChange `json:",omitempty"`
		Secrets      []string           `json:",omitempty"`
		ApplyOptions []string           `json:",omitempty"`
		Alerts       []string           `json:",omitempty"`
	}{p.Cluster, p.Nodes, p.Kubernetes, p.Settings, desired.Settings, bound, p.HealthChecks, p.Maintenance, p.SecretValuesChanged, p.ApplyOptions, p.Alerts}

	data, _ := json.Marshal(content) //nolint:errchkjson // plain structs always encode

	h := sha256.New()
	h.Write(data)
	writeInputs(h, desired.Inputs)

	return hex.EncodeToString(h.Sum(nil))
}

// Count returns how many nodes take each action.
func (p *Plan) Count() map[Action]int {
	out := map[Action]int{}
	for _, n := range p.Nodes {
		out[n.Action]++
	}

	return out
}

// HasChanges reports whether applying would change anything that could be read, or
// anything it acts on moves (a setting).
func (p *Plan) HasChanges() bool {
	return len(p.Settings) > 0 || slices.ContainsFunc(p.Nodes, func(n Node) bool {
		return (n.Action != Noop && n.Action != Unknown) || len(n.Settings) > 0
	})
}

// Names returns the nodes that take action a.
func (p *Plan) Names(a Action) []string {
	var out []string

	for _, n := range p.Nodes {
		if n.Action == a {
			out = append(out, n.Name)
		}
	}

	return out
}

// unknownCurrent plans a node whose current state is unknown (a pull request that fixes a
// node the base cannot render, or a node that cannot be read): nothing can be compared, so
// the whole config is shown and the reason says so.
func unknownCurrent(c, n NodeState, masker *mask.Masker) (Node, error) {
	diff, err := diffConfigs(nil, n.Config, n.Name, masker)
	if err != nil {
		return Node{}, err
	}

	settings := settingChanges(c.Settings, n.Settings, c.Settings != nil)

	return Node{
		Name: n.Name, Role: n.Role, Action: Update, Diff: diff, ConfigChanged: true, Settings: settings,
		Reasons: append([]string{masker.String("the current state of this node is unknown (" + c.Broken + "): its whole config is shown, and whether applying reboots or upgrades it cannot be told")}, settingReasons(settings)...),
	}, nil
}
