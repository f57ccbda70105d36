// Package archtest holds the layering rules of docs/architecture.md as tests: a change that
// makes a package import one it must not fails here, naming the path of imports.
package archtest

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/talops/talops/"

// The layers, by path under the module. A package's subpackages (fakes such as
// talos/talostest) belong to its layer.
var (
	doors    = []string{"cmd/talops", "internal/cli", "internal/action", "internal/door", "internal/startheap"}
	app      = []string{"internal/app"}
	views    = []string{"internal/report"}
	engine   = []string{"internal/rollout"}
	adapters = []string{"internal/alertmanager", "internal/talos", "internal/proxmox", "internal/github", "internal/factory", "internal/gitrev", "internal/kube", "internal/backupstore", "internal/etcdsnap"}
	core     = []string{
		"internal/applied", "internal/backup", "internal/catalog", "internal/cluster", "internal/finding", "internal/httpcap", "internal/images", "internal/importer", "internal/mask", "internal/migrate",
		"internal/plan", "internal/render", "internal/rules", "internal/scaffold", "internal/schematic",
		"internal/secrets", "internal/health", "internal/suggest", "internal/window", "internal/yamlpos",
	}
)

// tools are packages outside the layers: test helpers and repository tooling.
var tools = []string{"e2e", "internal/archtest", "internal/testlab", "renovate"}

func TestLayers_CoreAndViewsReachNoAdapter(t *testing.T) {
	t.Parallel()

	g := graph(t)

	for _, pkg := range g.in(append(slices.Clone(core), views...)...) {
		stop := func(string) bool { return false }

		for _, path := range g.reach(pkg, stop) {
			if inLayer(path[len(path)-1], adapters) {
				t.Errorf("%s reaches the adapter %s: %s", pkg, path[len(path)-1], strings.Join(path, " -> "))
			}
		}
	}
}

func TestLayers_CoreImportsOnlyCore(t *testing.T) {
	t.Parallel()

	g := graph(t)

	for _, pkg := range g.in(core...) {
		for _, imp := range g.imports[pkg] {
			if !inLayer(imp, core) {
				t.Errorf("%s imports %s: the pure core imports only the core", pkg, imp)
			}
		}
	}
}

func TestLayers_ViewsImportNoAppOrDoor(t *testing.T) {
	t.Parallel()

	g := graph(t)

	for _, pkg := range g.in(append(slices.Clone(views), engine...)...) {
		for _, imp := range g.imports[pkg] {
			// The views read the typed results of the core (internal/applied for an apply),
			// never the engine that drives the nodes.
			if inLayer(imp, app) || inLayer(imp, doors) || (inLayer(pkg, engine) && inLayer(imp, views)) || (inLayer(pkg, views) && inLayer(imp, engine)) {
				t.Errorf("%s imports %s, a layer above it", pkg, imp)
			}
		}
	}
}

func TestLayers_EngineImportsTheCoreAndTheTalosAdapterOnly(t *testing.T) {
	t.Parallel()

	g := graph(t)

	for _, pkg := range g.in(engine...) {
		for _, imp := range g.imports[pkg] {
			if !inLayer(imp, core) && !inLayer(imp, engine) && imp != "internal/talos" {
				t.Errorf("%s imports %s: the rollout drives the nodes through the Talos adapter only", pkg, imp)
			}
		}
	}
}

func TestLayers_AdaptersImportNothingAboveTheCore(t *testing.T) {
	t.Parallel()

	g := graph(t)

	for _, pkg := range g.in(adapters...) {
		for _, imp := range g.imports[pkg] {
			if !inLayer(imp, core) && !inLayer(imp, adapters) {
				t.Errorf("%s imports %s: an adapter speaks the core's types and nothing above", pkg, imp)
			}
		}
	}
}

func TestLayers_AppImportsNoDoor(t *testing.T) {
	t.Parallel()

	g := graph(t)

	for _, pkg := range g.in(app...) {
		for _, imp := range g.imports[pkg] {
			if inLayer(imp, doors) {
				t.Errorf("%s imports the door %s", pkg, imp)
			}
		}
	}
}

// Only the program imports the doors; what the command line and the action share (Deps,
// exit codes, the apply run) is internal/door, which both import and nothing else does.
func TestLayers_NothingImportsTheDoors(t *testing.T) {
	t.Parallel()

	allowed := map[string][]string{
		"internal/action":    {"cmd/talops"},
		"internal/cli":       {"cmd/talops"},
		"internal/door":      {"cmd/talops", "internal/cli", "internal/action"},
		"internal/startheap": {"cmd/talops"},
	}

	g := graph(t)

	for pkg, imps := range g.imports {
		for _, imp := range imps {
			if inLayer(imp, doors) && !slices.Contains(allowed[imp], pkg) {
				t.Errorf("%s imports the door %s", pkg, imp)
			}
		}
	}
}

func TestLayers_EveryPackageHasALayer(t *testing.T) {
	t.Parallel()

	g := graph(t)

	for pkg := range g.imports {
		if !slices.ContainsFunc([][]string{doors, app, views, engine, adapters, core, tools}, func(l []string) bool { return inLayer(pkg, l) }) {
			t.Errorf("package %s has no layer: add it to one (and to docs/architecture.md)", pkg)
		}
	}
}

// importGraph is the module's packages and their production imports within the module.
type importGraph struct {
	imports map[string][]string
}

// graph reads every package of the module from source, without building anything.
func graph(t *testing.T) *importGraph {
	t.Helper()

	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}

	g := &importGraph{imports: map[string][]string{}}

	err = filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}

		if name := e.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}

		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			var none *build.NoGoError
			if asNoGo(err, &none) {
				return nil
			}

			return err
		}

		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		g.imports[rel] = []string{}

		for _, imp := range pkg.Imports {
			if p, ok := strings.CutPrefix(imp, module); ok {
				g.imports[rel] = append(g.imports[rel], p)
			}
		}

		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	for _, want := range append(slices.Clone(doors), "internal/app", "internal/report", "internal/talos") {
		if _, ok := g.imports[want]; !ok {
			t.Fatalf("package %s not found: the layers above name packages that moved", want)
		}
	}

	return g
}

func asNoGo(err error, target **build.NoGoError) bool {
	e, ok := err.(*build.NoGoError) //nolint:errorlint // go/build returns it unwrapped
	if ok {
		*target = e
	}

	return ok
}

// in lists the packages of the graph in the given layers, sorted.
func (g *importGraph) in(layers ...string) []string {
	var out []string

	for pkg := range g.imports {
		if inLayer(pkg, layers) {
			out = append(out, pkg)
		}
	}

	slices.Sort(out)

	return out
}

// reach is every package pkg imports, directly or not, each with one path of imports
// leading to it; it does not look past a package stop accepts.
func (g *importGraph) reach(pkg string, stop func(string) bool) [][]string {
	seen := map[string]bool{pkg: true}
	queue := [][]string{{pkg}}

	var out [][]string

	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]

		for _, imp := range g.imports[path[len(path)-1]] {
			if seen[imp] {
				continue
			}

			seen[imp] = true
			next := append(slices.Clone(path), imp)
			out = append(out, next)

			if !stop(imp) {
				queue = append(queue, next)
			}
		}
	}

	return out
}

// inLayer reports whether pkg is one of the layer's packages or below one of them.
func inLayer(pkg string, layer []string) bool {
	return slices.ContainsFunc(layer, func(l string) bool { return pkg == l || strings.HasPrefix(pkg, l+"/") })
}
