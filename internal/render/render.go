// Package render turns the repository model into one machine config per node:
// machinery generate with the cluster's version contract, then patches all → role → node.
package render

import (
	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
	"sync"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"github.com/siderolabs/talos/pkg/machinery/config/generate"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/yamlpos"
)

// Layer is one source file that shaped a node's config, in the order applied.
type Layer struct {
	// File is the display path of the source.
	File string
	// Index locates the keys the file sets.
	Index *yamlpos.Index
}

// Machine is a node's final machine config and how it was made.
type Machine struct {
	Node cluster.Node
	// Config is the final machine config.
	Config coreconfig.Provider
	// Layers are the patches (or the complete config file) that shaped it, in order.
	Layers []Layer
	// Installer is the installer image talops put into the generated config ("" for config: nodes).
	Installer string
	// Generated is false for nodes whose config is a complete file from the repository.
	Generated bool

	encode func() ([]byte, error)
}

// Bytes is the final config encoded without comments, computed once on first use
// (validation does not need it, plans and render do).
func (n *Machine) Bytes() ([]byte, error) { return n.encode() }

// keepEncoding encodes the config and lets go of everything Bytes does not need.
func (n *Machine) keepEncoding() error {
	if _, err := n.Bytes(); err != nil {
		return err
	}

	n.Config, n.Layers = nil, nil

	return nil
}

// Result is the outcome for one node.
type Result struct {
	Name    string
	Machine *Machine
	Err     error
}

// Installer names the installer image a node should run.
type Installer func(c *cluster.Cluster, n cluster.Node) (string, error)

// Options shape rendering.
type Options struct {
	// Installer computes each node's installer image.
	Installer Installer
	// EncodeOnly makes each render worker encode its node's config as soon as it is
	// rendered and keep only that encoding (Bytes): the Machine's Config and Layers are nil.
	// For whoever needs nothing but the bytes (render, which writes them): 500 decoded
	// configs are then never held at once, and the encoding runs over the cores with the
	// rendering. A config that does not encode is the node's error.
	EncodeOnly bool
	// Patches, when set, keeps every patch file loaded and hands out those whose bytes it
	// already holds: a plan renders both of its states with one cache.
	Patches *PatchCache

	// patches holds every patch file parsed once, shared by the nodes that use it.
	patches map[string]*patch
	// bundle is bundleSum of the bundle rendered with, when bundleKnown (only with Patches).
	bundle      [sha256.Size]byte
	bundleKnown bool
	// docs shares the documents the nodes render alike (nil: none shared).
	docs *docShare
}

// All renders every node concurrently; results keep the order of talops.yaml.
func All(ctx context.Context, c *cluster.Cluster, b *secrets.Bundle, opts Options) []Result {
	return NewRenderer(c, b, opts).Nodes(ctx, c.Spec.Nodes)
}

// A Renderer renders the nodes of one state, as many at a time as it is given: a plan
// that streams renders a chunk of each state, compares it and drops it before the next.
type Renderer struct {
	c    *cluster.Cluster
	b    *secrets.Bundle
	opts Options
}

// NewRenderer parses the patch files more than one node uses, once, for every chunk.
func NewRenderer(c *cluster.Cluster, b *secrets.Bundle, opts Options) *Renderer {
	opts.patches = loadPatches(c, opts.Patches)
	if opts.Patches != nil {
		opts.bundle, opts.bundleKnown = bundleSum(b)
	}

	// The configs are kept (the rules judge them all at once, a plan compares them) or
	// encoded: the documents they render alike are shared, and encoded once.
	if opts.Patches != nil {
		opts.docs = opts.Patches.docs
	} else {
		opts.docs = newDocShare()
	}

	return &Renderer{c: c, b: b, opts: opts}
}

// Nodes renders nodes (the state's) concurrently; results keep their order.
func (r *Renderer) Nodes(ctx context.Context, nodes []cluster.Node) []Result {
	results := make([]Result, len(nodes))

	overCores(ctx, len(nodes), func(i int, err error) {
		results[i].Name = nodes[i].Name
		if err != nil {
			results[i].Err = err

			return
		}

		m, err := one(ctx, r.c, r.b, nodes[i], r.opts)
		if err == nil && r.opts.EncodeOnly {
			err = m.keepEncoding()
		}

		if err != nil {
			results[i].Err = err

			return
		}

		results[i].Machine = m
	})

	return results
}

// overCores calls do for 0..n-1, as many at once as there are cores; do gets ctx's error
// instead of running its work once ctx is done.
func overCores(ctx context.Context, n int, do func(i int, err error)) {
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))

	var wg sync.WaitGroup

	for i := range n {
		if err := ctx.Err(); err != nil {
			do(i, err)

			continue
		}

		wg.Add(1)

		sem <- struct{}{}

		go func() {
			defer func() { <-sem; wg.Done() }()

			do(i, nil)
		}()
	}

	wg.Wait()
}

// One renders a single node.
func One(c *cluster.Cluster, b *secrets.Bundle, n cluster.Node, opts Options) (*Machine, error) {
	if opts.Patches != nil {
		opts.bundle, opts.bundleKnown = bundleSum(b)
	}

	return one(context.Background(), c, b, n, opts)
}

// one renders a node and stops between patches when ctx is done.
func one(ctx context.Context, c *cluster.Cluster, b *secrets.Bundle, n cluster.Node, opts Options) (*Machine, error) {
	if n.Config != "" {
		return complete(c, n)
	}

	contract, err := coreconfig.ParseContractFromVersion(c.ConfigVersion())
	if err != nil {
		return nil, c.ConfigVersionError(err)
	}

	installer := ""
	if opts.Installer != nil {
		if installer, err = opts.Installer(c, n); err != nil {
			return nil, fmt.Errorf("installer for node %s: %w", n.Name, err)
		}
	}

	rels := c.NodePatches(n)
	out := &Machine{Node: n, Installer: installer, Generated: true}

	key, loaded, reuse := opts.reusable(c, n, installer, rels)
	if reuse {
		if cfg, ok := opts.Patches.config(key); ok {
			if !opts.EncodeOnly {
				for _, p := range loaded {
					out.Layers = append(out.Layers, Layer{File: p.file, Index: p.layer})
				}
			}

			return finish(out, cfg, opts.docs)
		}
	}

	cfg, err := generated(c, b, n, contract, installer)
	if err != nil {
		return nil, err
	}

	if cfg, err = applyPatches(ctx, c, out, cfg, rels, loaded, opts); err != nil {
		return nil, err
	}

	if cfg, err = withInstaller(cfg, installer); err != nil {
		return nil, fmt.Errorf("render node %s: %w", n.Name, err)
	}

	cfg = opts.docs.share(cfg)

	if reuse {
		opts.Patches.keepConfig(key, cfg)
	}

	return finish(out, cfg, opts.docs)
}

// applyPatches applies to cfg the patches of out's node, rels in order: those loaded already
// (loaded, when the node's key loaded them), the others each loaded as its turn comes. It
// stops between patches when ctx is done, and records the layers unless only the encoding
// is kept.
func applyPatches(ctx context.Context, c *cluster.Cluster, out *Machine, cfg coreconfig.Provider, rels []string, loaded []*patch, opts Options) (coreconfig.Provider, error) {
	for i := range max(len(rels), len(loaded)) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("render node %s: %w", out.Node.Name, err)
		}

		var (
			p   *patch
			err error
		)

		if i < len(loaded) {
			p = loaded[i]
		} else if p, err = opts.patch(c, rels[i]); err != nil {
			return nil, err
		}

		if cfg, err = p.apply(ctx, cfg); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("render node %s: %w", out.Node.Name, err)
			}

			return nil, err
		}

		if !opts.EncodeOnly {
			out.Layers = append(out.Layers, Layer{File: p.file, Index: p.layer})
		}
	}

	return cfg, nil
}

// generated is the config Talos generates for n, before any patch.
func generated(c *cluster.Cluster, b *secrets.Bundle, n cluster.Node, contract *coreconfig.VersionContract, installer string) (coreconfig.Provider, error) {
	genOpts := []generate.Option{
		generate.WithVersionContract(contract),
		generate.WithSecretsBundle(b.Bundle),
	}

	if n.InstallDisk != "" {
		genOpts = append(genOpts, generate.WithInstallDisk(n.InstallDisk))
	}

	if installer != "" {
		genOpts = append(genOpts, generate.WithInstallImage(installer))
	}

	input, err := generate.NewInput(c.Spec.Cluster.Name, c.Spec.Cluster.Endpoint, kubernetesVersion(c.Spec.KubernetesVersion), genOpts...)
	if err != nil {
		return nil, &cluster.InputError{File: c.Path(cluster.FileName), Line: c.NodeLine(n.Name, ""), Field: "nodes", Msg: "generate: " + err.Error()}
	}

	typ := machine.TypeWorker
	if n.Role == cluster.RoleControlPlane {
		typ = machine.TypeControlPlane
	}

	cfg, err := input.Config(typ)
	if err != nil {
		return nil, fmt.Errorf("generate config for node %s: %w", n.Name, err)
	}

	if b.Secrets != nil {
		nameSecretboxKey(cfg, c.Spec.Cluster.SecretboxKeyNames, b.Secrets.SecretboxEncryptionSecret)
	}

	return cfg, nil
}

// complete loads a node's ready-made machine config.
func complete(c *cluster.Cluster, n cluster.Node) (*Machine, error) {
	data, _ := c.File(n.Config)
	file := c.Path(n.Config)

	cfg, ix, err := LoadConfig(file, data)
	if err != nil {
		return nil, err
	}

	return finish(&Machine{Node: n, Layers: []Layer{{File: file, Index: ix}}}, cfg, nil)
}

// LoadConfig loads a complete machine config and indexes where its keys are. Errors are
// *cluster.InputError placed at the line and key to fix (one per unknown key), without
// the values machinery echoes back.
func LoadConfig(file string, data []byte) (coreconfig.Provider, *yamlpos.Index, error) {
	ix, err := yamlpos.Parse(data)
	if err != nil {
		return nil, nil, syntaxError(file, nil, err)
	}

	if err := checkDocNames(file, ix); err != nil {
		return nil, nil, err
	}

	cfg, err := configloader.NewFromBytes(data)
	if err != nil {
		return nil, nil, loadError(file, ix, err)
	}

	return cfg, ix, nil
}

// finish makes out the node's rendering of cfg, encoded on demand (through docs, which
// encodes the documents it shares once; nil: by machinery).
func finish(out *Machine, cfg coreconfig.Provider, docs *docShare) (*Machine, error) {
	out.Config = cfg
	out.encode = sync.OnceValues(func() ([]byte, error) {
		data, err := docs.encode(cfg)
		if err != nil {
			return nil, fmt.Errorf("encode config of node %s: %w", out.Node.Name, err)
		}

		return data, nil
	})

	return out, nil
}

// kubernetesVersion strips the leading v: machinery expects a bare version.
func kubernetesVersion(v string) string {
	if len(v) > 0 && v[0] == 'v' {
		return v[1:]
	}

	return v
}

// loadPatches parses every patch file more than one node uses, once. A node's own patches
// are parsed in its render worker (Options.patch), in parallel with the others. A file that
// fails to parse is left out, so each node that uses it reports the error itself.
func loadPatches(c *cluster.Cluster, cache *PatchCache) map[string]*patch {
	uses := map[string]int{}

	for _, n := range c.Spec.Nodes {
		for _, rel := range c.NodePatches(n) {
			uses[rel]++
		}
	}

	out := map[string]*patch{}

	for _, n := range c.Spec.Nodes {
		for _, rel := range c.NodePatches(n) {
			if _, done := out[rel]; done || uses[rel] < 2 {
				continue
			}

			data, _ := c.File(rel)
			if p, err := cache.load(c.Path(rel), data, false); err == nil {
				out[rel] = p
			}
		}
	}

	return out
}

func (o Options) patch(c *cluster.Cluster, rel string) (*patch, error) {
	if p, ok := o.patches[rel]; ok {
		return p, nil
	}

	data, _ := c.File(rel)

	return o.Patches.load(c.Path(rel), data, o.EncodeOnly)
}
