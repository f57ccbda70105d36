package archtest

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// heavyPackages are what the talops binary must not link, each with why. internal/kube
// reads and writes every object through the dynamic client and maps kinds to resources
// itself (docs/performance.md): client-go's typed clients and discovery client would bring
// back the scheme of every API group, the apply configurations and the OpenAPI clients,
// some 17 MB of the binary.
var heavyPackages = map[string]string{
	"k8s.io/client-go/kubernetes/scheme": "registers every Kubernetes API group; a typed client imports it",
	"k8s.io/client-go/discovery":         "links the scheme and the OpenAPI clients; internal/kube's mapper reads discovery itself",
}

func TestBinary_LinksNoKubernetesSchemeNorDiscoveryClient(t *testing.T) {
	t.Parallel()

	const program = module + "cmd/talops"

	deps := binaryDeps(t, "./cmd/talops")
	if _, ok := deps[program]; !ok {
		t.Fatalf("go list names no %s among %d packages", program, len(deps))
	}

	g := &importGraph{imports: deps}
	found := map[string]bool{}

	for _, path := range g.reach(program, func(string) bool { return false }) {
		pkg := path[len(path)-1]

		for heavy, why := range heavyPackages {
			if (pkg == heavy || strings.HasPrefix(pkg, heavy+"/")) && !found[heavy] {
				found[heavy] = true

				t.Errorf("talops links %s (%s): %s", pkg, why, strings.Join(path, " -> "))
			}
		}
	}
}

// binaryDeps is every package the named program links, with the packages each imports,
// as the go command resolves them (go.work included).
func binaryDeps(t *testing.T, pkg string) map[string][]string {
	t.Helper()

	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", pkg)
	cmd.Dir = root

	var stderr bytes.Buffer
	cmd.Stderr = &stderr

	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr.String())
	}

	deps := map[string][]string{}

	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 0 {
			deps[fields[0]] = fields[1:]
		}
	}

	return deps
}
