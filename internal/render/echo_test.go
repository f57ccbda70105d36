package render_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
	"github.com/talops/talops/internal/testlab/hostile"
)

// bundleValues are the lab's secret values, every string of its bundle file that is long
// enough to matter.
func bundleValues(t *testing.T) []string {
	t.Helper()

	data, err := os.ReadFile(filepath.Join(testlab.Dir(), "secrets.THROWAWAY.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}

	var out []string

	var leaves func(n *yaml.Node)
	leaves = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && len(n.Value) >= 7 {
			out = append(out, n.Value)
		}

		for i, c := range n.Content {
			if n.Kind == yaml.MappingNode && i%2 == 0 {
				continue
			}

			leaves(c)
		}
	}
	leaves(&root)

	if len(out) < 10 {
		t.Fatalf("only %d values in the lab's bundle", len(out))
	}

	return out
}

// echoes returns the 7-character windows of values that msg holds.
func echoes(msg string, values []string) []string {
	var out []string

	for _, v := range values {
		for i := 0; i+7 <= len(v); i++ {
			if w := v[i : i+7]; strings.Contains(msg, w) {
				out = append(out, w)

				break
			}
		}
	}

	return out
}

// secretPaths hold the bundle's values in a control plane's config.
var secretPaths = []string{
	"/cluster/id", "/cluster/secret", "/cluster/token", "/cluster/secretboxEncryptionSecret",
	"/machine/token", "/machine/ca/crt", "/machine/ca/key", "/cluster/ca/crt", "/cluster/ca/key",
	"/cluster/aggregatorCA/key", "/cluster/serviceAccount/key", "/cluster/etcd/ca/key",
}

// typedPaths are fields of every kind of type a secret can be copied into.
var typedPaths = []string{
	"/machine/install/wipe", "/machine/kubelet/extraArgs", "/machine/sysctls", "/machine/install/extraKernelArgs",
	"/cluster/controlPlane/endpoint", "/machine/network/interfaces", "/machine/time/bootTimeout",
	"/machine/kubelet/nodeIP", "/cluster/network/podSubnets", "/machine/install/diskSelector",
	"/machine/features/kubePrism/port", "/cluster/proxy/disabled", "/machine/certSANs", "/machine/ca",
	"/machine/network/nameservers", "/cluster/apiServer/extraArgs", "/machine/install/disk",
}

func TestRender_ErrorsOfSecretsCopiedIntoTypedFieldsEchoNoSecret(t *testing.T) {
	values := bundleValues(t)
	lab := testlab.Files(t)

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(testlab.Load(t, lab))
	if err != nil {
		t.Fatal(err)
	}

	failed := 0

	for _, from := range secretPaths {
		for _, to := range typedPaths {
			patch := fmt.Sprintf("- op: add\n  path: /machine/sysctls/a\n  value: \"1\"\n- op: copy\n  from: %s\n  path: %s\n", from, to)

			files := maps.Clone(lab)
			files["patches/controlplane.yaml"] = []byte(patch)

			c := testlab.Load(t, files)

			_, err := render.One(c, b, c.Spec.Nodes[0], render.Options{})
			if err == nil {
				continue
			}

			failed++

			if e := echoes(err.Error(), values); len(e) > 0 {
				// The message itself is not printed: it holds the values.
				t.Errorf("copy %s to %s: the error echoes %d of the bundle's values", from, to, len(e))
			}
		}
	}

	if failed < len(secretPaths)*len(typedPaths)/2 {
		t.Errorf("only %d of the copies failed: the test no longer reaches the decoder", failed)
	}
}

// checkedPaths are string fields machinery validation judges, and quotes when it refuses.
var checkedPaths = []string{
	"/cluster/network/dnsDomain", "/cluster/discovery/registries/service/endpoint",
	"/machine/nodeLabels/x", "/machine/type", "/machine/install/disk",
}

// The findings of validation are an error path too: the rules live in internal/rules,
// the bundle and the lab's renders here.
func TestValidateConfig_FindingsOfSecretsCopiedIntoCheckedFieldsEchoNoSecret(t *testing.T) {
	values := bundleValues(t)
	lab := testlab.Files(t)

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(testlab.Load(t, lab))
	if err != nil {
		t.Fatal(err)
	}

	findings := 0

	for _, from := range secretPaths {
		for _, to := range checkedPaths {
			files := maps.Clone(lab)
			files["patches/controlplane.yaml"] = []byte(fmt.Sprintf("- op: copy\n  from: %s\n  path: %s\n", from, to))

			c := testlab.Load(t, files)

			m, err := render.One(c, b, c.Spec.Nodes[0], render.Options{})
			if err != nil {
				if len(echoes(err.Error(), values)) > 0 {
					t.Errorf("render after copying %s to %s: the error echoes the bundle", from, to)
				}

				continue
			}

			for _, f := range rules.ValidateConfig(m.Config, rules.ModeMetal, true, func(string) (string, int) { return "", 0 }, "n") {
				findings++

				if e := echoes(f.Message, values); len(e) > 0 {
					t.Errorf("copy %s to %s: finding %s echoes %d of the bundle's values", from, to, f.Code, len(e))
				}
			}
		}
	}

	if findings < len(secretPaths) {
		t.Errorf("only %d findings: the test no longer reaches validation", findings)
	}
}

func TestLoadConfig_CompleteConfigWithASecretInTheWrongFieldEchoesNoSecret(t *testing.T) {
	values := bundleValues(t)
	cfg := encoded(t, node(t, renderLab(t, testlab.Files(t)), "k8s-master"))

	secret := ""

	for _, v := range values {
		if strings.Contains(cfg, "secret: "+v+"\n") {
			secret = v
		}
	}

	if secret == "" || !strings.Contains(cfg, "wipe: false\n") {
		t.Fatal("the lab's control plane config changed shape")
	}

	for name, data := range map[string]string{
		"a secret as a bool":               strings.Replace(cfg, "wipe: false\n", "wipe: "+secret+"\n", 1),
		"a secret as a list":               strings.Replace(cfg, "wipe: false\n", "wipe: false\n        extraKernelArgs: "+secret+"\n", 1),
		"a secret under a misspelled key":  strings.Replace(cfg, "    secret: ", "    secrett: ", 1),
		"a secret as a key of a bad value": strings.Replace(cfg, "wipe: false\n", "wipe: false\n        "+secret+": [\n", 1),
	} {
		_, _, err := render.LoadConfig("rendered/k8s-master.yaml", []byte(data))
		if err == nil {
			t.Errorf("%s: loaded", name)

			continue
		}

		if e := echoes(err.Error(), values); len(e) > 0 {
			t.Errorf("%s: the error echoes %d of the bundle's values", name, len(e))
		}
	}
}

// FuzzLoadConfig reads arbitrary bytes as a complete machine config (`config:` nodes and
// validate FILE): no panic.
func FuzzLoadConfig(f *testing.F) {
	f.Add([]byte("version: v1alpha1\nmachine:\n  type: worker\ncluster:\n  clusterName: lab\n"))
	f.Add([]byte("---\napiVersion: v1alpha1\nkind: HostnameConfig\nhostname: a\n"))
	f.Add([]byte("machine: [1"))
	f.Add([]byte("version: v1alpha1\nmachine:\n  type: worker\n  kubelet:\n    extraConfig: " + hostile.AliasBomb(9) + "\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		hostile.Bounded(t, func() {
			_, _, _ = render.LoadConfig("node.yaml", data) // only a panic fails
		})
	})
}
