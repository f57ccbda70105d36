package cluster_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/testlab/hostile"
)

const minimal = `cluster:
  name: lab
  endpoint: https://10.0.0.10:6443
talosVersion: v1.13.9
kubernetesVersion: v1.36.4
schematics:
  base: schematics/base.yaml
patches:
  all: [patches/common.yaml]
nodes:
  - name: cp1
    address: 10.0.0.10
    role: controlplane
    schematic: base
  - name: w1
    address: 10.0.0.11
    role: worker
    patches: [nodes/w1.yaml]
`

func files(talops string) cluster.MapFiles {
	return cluster.MapFiles{
		"talops.yaml":            []byte(talops),
		"schematics/base.yaml":   []byte("customization: {}\n"),
		"patches/common.yaml":    []byte("machine: {}\n"),
		"nodes/w1.yaml":          []byte("machine: {}\n"),
		"rendered/complete.yaml": []byte("version: v1alpha1\n"),
	}
}

func TestLoad_MinimalRepositoryLoads(t *testing.T) {
	c, err := cluster.Load("lab", files(minimal))
	if err != nil {
		t.Fatal(err)
	}

	if got := c.NodePatches(c.Spec.Nodes[1]); strings.Join(got, ",") != "patches/common.yaml,nodes/w1.yaml" {
		t.Errorf("patch order = %v", got)
	}

	if c.Platform() != "metal" || c.ImageFactory() != "https://factory.talos.dev" {
		t.Errorf("defaults: platform %q factory %q", c.Platform(), c.ImageFactory())
	}

	if line := c.NodeLine("w1", "patches"); line != 18 {
		t.Errorf("w1 patches line = %d, want 18", line)
	}

	if data, ok := c.File("nodes/w1.yaml"); !ok || string(data) != "machine: {}\n" {
		t.Errorf("file contents not kept: %q", data)
	}
}

func TestLoad_BadInputIsPlacedAtFileLineAndField(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(string) string
		files map[string]string
		want  []string
	}{
		{
			name: "malformed YAML",
			edit: func(s string) string { return strings.Replace(s, "  name: lab", "  name: [lab", 1) },
			want: []string{"lab/talops.yaml:3: "},
		},
		{
			name: "unknown top-level key",
			edit: func(s string) string { return s + "talosVersoin: v1.13.0\n" },
			want: []string{"lab/talops.yaml:19: talosVersoin: unknown field"},
		},
		{
			name: "unknown key in a node",
			edit: func(s string) string { return strings.Replace(s, "    schematic: base", "    shematic: base", 1) },
			want: []string{"lab/talops.yaml:14: nodes[0].shematic: unknown field"},
		},
		{
			name: "missing patch file",
			edit: func(s string) string { return strings.Replace(s, "nodes/w1.yaml", "nodes/w2.yaml", 1) },
			want: []string{"lab/talops.yaml:18: nodes[1].patches[0]: nodes/w2.yaml: file not found"},
		},
		{
			name: "path outside the directory",
			edit: func(s string) string { return strings.Replace(s, "patches/common.yaml", "../common.yaml", 1) },
			want: []string{"lab/talops.yaml:9: patches.all[0]: \"../common.yaml\": path must stay inside the directory"},
		},
		{
			name: "absolute path",
			edit: func(s string) string { return strings.Replace(s, "schematics/base.yaml", "/etc/passwd", 1) },
			want: []string{"lab/talops.yaml:7: schematics.base: \"/etc/passwd\": path must stay inside the directory"},
		},
		{
			name: "duplicate node names",
			edit: func(s string) string { return strings.Replace(s, "name: w1", "name: cp1", 1) },
			want: []string{"lab/talops.yaml:15: nodes[1].name: duplicate node name \"cp1\" (also nodes[0])"},
		},
		{
			name: "duplicate addresses",
			edit: func(s string) string { return strings.Replace(s, "10.0.0.11", "10.0.0.10", 1) },
			want: []string{"lab/talops.yaml:16: nodes[1].address: duplicate address \"10.0.0.10\" (also nodes[0])"},
		},
		{
			name: "unknown schematic name",
			edit: func(s string) string { return strings.Replace(s, "schematic: base", "schematic: gpu", 1) },
			want: []string{"lab/talops.yaml:14: nodes[0].schematic: unknown schematic \"gpu\" (known: base)"},
		},
		{
			name: "unknown node platform is refused at its line",
			edit: func(s string) string {
				return strings.Replace(s, "    role: worker\n", "    role: worker\n    platform: proxmox\n", 1)
			},
			want: []string{`lab/talops.yaml:18: nodes[1].platform: unknown platform "proxmox" (one of akamai, aws,`},
		},
		{
			name: "bad role",
			edit: func(s string) string { return strings.Replace(s, "role: worker", "role: workr", 1) },
			want: []string{"lab/talops.yaml:17: nodes[1].role: must be controlplane or worker, got \"workr\""},
		},
		{
			name: "version without v",
			edit: func(s string) string { return strings.Replace(s, "talosVersion: v1.13.9", "talosVersion: 1.13.9", 1) },
			want: []string{"lab/talops.yaml:4: talosVersion: \"1.13.9\" is not a release version: write v and all three parts, as in v1.14.1"},
		},
		{
			name: "talos version without its patch",
			edit: func(s string) string { return strings.Replace(s, "talosVersion: v1.13.9", "talosVersion: v1.13", 1) },
			want: []string{"lab/talops.yaml:4: talosVersion: \"v1.13\" is not a release version: write v and all three parts, as in v1.14.1"},
		},
		{
			name: "kubernetes version without its patch",
			edit: func(s string) string {
				return strings.Replace(s, "kubernetesVersion: v1.36.4", "kubernetesVersion: v1.36", 1)
			},
			want: []string{"lab/talops.yaml:5: kubernetesVersion: \"v1.36\" is not a release version: write v and all three parts, as in v1.36.4"},
		},
		{
			name: "a word for a version",
			edit: func(s string) string { return strings.Replace(s, "talosVersion: v1.13.9", "talosVersion: latest", 1) },
			want: []string{"lab/talops.yaml:4: talosVersion: \"latest\" is not a release version: write v and all three parts, as in v1.14.1"},
		},
		{
			name: "config version newer than the release",
			edit: func(s string) string {
				return strings.Replace(s, "talosVersion: v1.13.9\n", "talosVersion: v1.13.9\nconfigVersion: v1.14\n", 1)
			},
			want: []string{"lab/talops.yaml:5: configVersion: v1.14 is newer than talosVersion v1.13.9"},
		},
		{
			name: "cluster name with a newline and markup is not a DNS-1123 label",
			edit: func(s string) string { return strings.Replace(s, "  name: lab\n", "  name: \"lab\\n<!--\"\n", 1) },
			want: []string{"lab/talops.yaml:2: cluster.name: must be a DNS-1123 label: at most 63 lower-case letters, digits and dashes, starting and ending with a letter or digit"},
		},
		{
			name: "cluster name with a dot is not a DNS-1123 label",
			edit: func(s string) string { return strings.Replace(s, "  name: lab\n", "  name: lab.home\n", 1) },
			want: []string{"lab/talops.yaml:2: cluster.name: must be a DNS-1123 label"},
		},
		{
			name: "image factory over plain http",
			edit: func(s string) string {
				return strings.Replace(s, "kubernetesVersion: v1.36.4\n", "kubernetesVersion: v1.36.4\nimageFactory: http://factory.lab:8080\n", 1)
			},
			want: []string{`lab/talops.yaml:6: imageFactory: must be an https:// URL (http:// only to a loopback address), got "http://factory.lab:8080"`},
		},
		{
			name: "secretbox key names on a contract that names the key itself",
			edit: func(s string) string {
				return strings.Replace(s, "  name: lab\n", "  name: lab\n  secretboxKeyNames: [key1, key2]\n", 1)
			},
			want: []string{"lab/talops.yaml:3: cluster.secretboxKeyNames: applies from configVersion v1.14, where the KubeEtcdEncryptionConfig document names the key; the v1.13.9 contract names it key2 itself"},
		},
		{
			name: "a secretbox key name twice",
			edit: func(s string) string {
				return strings.Replace(strings.Replace(s, "  name: lab\n", "  name: lab\n  secretboxKeyNames: [key1, key1]\n", 1), "talosVersion: v1.13.9", "talosVersion: v1.14.1", 1)
			},
			want: []string{`lab/talops.yaml:3: cluster.secretboxKeyNames: must be distinct DNS-1123 labels (key2, key1), got "key1"`},
		},
		{
			name: "endpoint not https",
			edit: func(s string) string { return strings.Replace(s, "https://10.0.0.10:6443", "10.0.0.10", 1) },
			want: []string{"lab/talops.yaml:3: cluster.endpoint: must be an https:// URL"},
		},
		{
			name: "several problems at once",
			edit: func(s string) string {
				return strings.Replace(strings.Replace(s, "role: worker", "role: x", 1), "schematic: base", "schematic: y", 1)
			},
			want: []string{"nodes[0].schematic: unknown schematic", "nodes[1].role: must be controlplane or worker"},
		},
		{
			name: "wrong type",
			edit: func(s string) string { return strings.Replace(s, "  - name: w1", "  - name: [w1]", 1) },
			want: []string{"lab/talops.yaml:15: "},
		},
		{
			name: "empty file",
			edit: func(string) string { return "" },
			want: []string{"lab/talops.yaml: file is empty"},
		},
		{
			name: "value of the wrong type names its field",
			edit: func(s string) string {
				return strings.Replace(s, "    role: worker\n", "    role: worker\n    proxmox: {node: pve, vmid: abc}\n", 1)
			},
			want: []string{"lab/talops.yaml:18: nodes[1].proxmox.vmid: cannot construct !!str into int"},
		},
		{
			name: "one address spelt two ways is a duplicate",
			edit: func(s string) string {
				return strings.Replace(strings.Replace(s, "10.0.0.10\n", "\"::1\"\n", 1), "10.0.0.11\n", "\"0:0::1\"\n", 1)
			},
			want: []string{`lab/talops.yaml:16: nodes[1].address: duplicate address "0:0::1" (also nodes[0])`},
		},
		{
			name: "an install disk on a node with a complete config would be ignored",
			edit: func(s string) string {
				return strings.Replace(s, "    patches: [nodes/w1.yaml]\n", "    config: rendered/complete.yaml\n    installDisk: /dev/sda\n", 1)
			},
			want: []string{"lab/talops.yaml:19: nodes[1].installDisk: a node with config: uses that file as it is; set the install disk in it"},
		},
		{
			name: "an installer that is no factory repository",
			edit: func(s string) string {
				return strings.Replace(s, "kubernetesVersion: v1.36.4\n", "kubernetesVersion: v1.36.4\ninstaller: proxmox-installer\n", 1)
			},
			want: []string{`lab/talops.yaml:6: installer: unknown installer "proxmox-installer": installer, or <platform>-installer`},
		},
		{
			name: "an installer with the secure boot suffix",
			edit: func(s string) string {
				return strings.Replace(s, "kubernetesVersion: v1.36.4\n", "kubernetesVersion: v1.36.4\ninstaller: installer-secureboot\n", 1)
			},
			want: []string{`lab/talops.yaml:6: installer: "installer-secureboot": name it without -secureboot (installer): a node's secureBoot adds the suffix`},
		},
		{
			name: "a schematic's installer that is no factory repository",
			edit: func(s string) string {
				return strings.Replace(s, "  base: schematics/base.yaml\n", "  base: {file: schematics/base.yaml, installer: ghcr.io/me/installer}\n", 1)
			},
			want: []string{`lab/talops.yaml:7: schematics.base.installer: unknown installer "ghcr.io/me/installer"`},
		},
		{
			name: "a schematic mapping without its file",
			edit: func(s string) string {
				return strings.Replace(s, "  base: schematics/base.yaml\n", "  base: {installer: installer}\n", 1)
			},
			want: []string{`lab/talops.yaml:7: schematics.base: names no file (file: is required)`},
		},
		{
			name: "an unknown key in a schematic mapping",
			edit: func(s string) string {
				return strings.Replace(s, "  base: schematics/base.yaml\n", "  base: {file: schematics/base.yaml, installr: installer}\n", 1)
			},
			want: []string{`lab/talops.yaml:7: schematics.base.installr: unknown field`},
		},
		{
			name: "a second document is refused at its line",
			edit: func(s string) string { return s + "---\nnodes: []\n" },
			want: []string{"lab/talops.yaml:20: expected one YAML document, found another"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cluster.Load("lab", files(tc.edit(minimal)))
			if err == nil {
				t.Fatal("loaded, want an error")
			}

			var ie *cluster.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}

			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%s\ndoes not contain\n%s", err, w)
				}
			}
		})
	}
}

func TestNodePlatform_IsTheNodesOwnElseTheClustersElseMetal(t *testing.T) {
	for _, tc := range []struct {
		name, cluster, node, want string
	}{
		{name: "neither names one", want: "metal"},
		{name: "the cluster's", cluster: "nocloud", want: "nocloud"},
		{name: "the node's beside the default", node: "nocloud", want: "nocloud"},
		{name: "the node's over the cluster's", cluster: "nocloud", node: "metal", want: "metal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cluster.Cluster{Spec: cluster.Spec{Platform: tc.cluster}}
			if got := c.NodePlatform(cluster.Node{Name: "w1", Platform: tc.node}); got != tc.want {
				t.Errorf("NodePlatform = %q, want %q", got, tc.want)
			}
		})
	}
}

// A node's installer repository: its schematic's installer, else the cluster's, else its
// platform's; a schematic is written as a path or as a mapping with its installer.
func TestNodeInstaller_IsTheSchematicsElseTheClustersElseThePlatforms(t *testing.T) {
	for _, tc := range []struct {
		name, edit, node, want string
	}{
		{name: "no setting: the platform's", node: "cp1", want: "metal-installer"},
		{name: "the cluster's", edit: "installer: installer\nschematics:\n  base: schematics/base.yaml\n", node: "cp1", want: "installer"},
		{name: "the schematic's", edit: "schematics:\n  base: {file: schematics/base.yaml, installer: installer}\n", node: "cp1", want: "installer"},
		{name: "the schematic's over the cluster's", edit: "installer: nocloud-installer\nschematics:\n  base:\n    file: schematics/base.yaml\n    installer: installer\n", node: "cp1", want: "installer"},
		{name: "a node without a schematic takes the cluster's", edit: "installer: installer\nschematics:\n  base: {file: schematics/base.yaml, installer: metal-installer}\n", node: "w1", want: "installer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			talops := minimal
			if tc.edit != "" {
				talops = strings.Replace(minimal, "schematics:\n  base: schematics/base.yaml\n", tc.edit, 1)
			}

			c, err := cluster.Load("lab", files(talops))
			if err != nil {
				t.Fatal(err)
			}

			if got := c.Spec.Schematics["base"].File; got != "schematics/base.yaml" {
				t.Errorf("schematics.base file = %q", got)
			}

			if got := c.NodeInstaller(c.Spec.Nodes[c.NodeIndex(tc.node)], "v1.13.9"); got != tc.want {
				t.Errorf("NodeInstaller(%s) = %q, want %q", tc.node, got, tc.want)
			}

			// The platform-less installer serves Talos up to 1.13: from 1.14 the platform's.
			want114 := tc.want
			if want114 == "installer" {
				want114 = "metal-installer"
			}

			if got := c.NodeInstaller(c.Spec.Nodes[c.NodeIndex(tc.node)], "v1.14.7"); got != want114 {
				t.Errorf("NodeInstaller(%s) at v1.14.7 = %q, want %q", tc.node, got, want114)
			}
		})
	}
}

func TestLoad_MergeKeysAreFollowedLikeTheDecoderDoes(t *testing.T) {
	withAnchors := strings.Replace(minimal, "  - name: w1\n    address: 10.0.0.11\n    role: worker\n",
		"  - &worker\n    name: w1\n    address: 10.0.0.11\n    role: worker\n  - <<: *worker\n    name: w2\n    address: 10.0.0.12\n", 1)

	c, err := cluster.Load("lab", files(withAnchors))
	if err != nil {
		t.Fatal(err)
	}

	if n := c.Spec.Nodes[2]; n.Name != "w2" || n.Role != "worker" || len(n.Patches) != 1 {
		t.Errorf("merged node = %+v", n)
	}

	// An unknown key brought in by a merge is still an unknown key.
	withTypo := strings.Replace(withAnchors, "    role: worker\n", "    role: worker\n    rol: x\n", 1)

	if _, err := cluster.Load("lab", files(withTypo)); err == nil || !strings.Contains(err.Error(), "rol: unknown field") {
		t.Errorf("error = %v, want the unknown field", err)
	}
}

func TestDir_SymlinkOutOfTheDirectoryIsNamedAsSuch(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.yaml"), []byte("machine: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "talops.yaml"), []byte(strings.Replace(minimal, "nodes/w1.yaml", "nodes/link.yaml", 1)), 0o600); err != nil {
		t.Fatal(err)
	}

	for name, data := range files(minimal) {
		if name == "talops.yaml" {
			continue
		}

		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o700); err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "nodes", "link.yaml")); err != nil {
		t.Fatal(err)
	}

	d, err := cluster.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close() //nolint:errcheck // the test is done with it

	_, err = cluster.Load("lab", d)
	if want := "lab/talops.yaml:18: nodes[1].patches[0]: nodes/link.yaml: path must stay inside the directory (no absolute paths, no ..): a symbolic link on the way points outside it"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestDir_RefusesSymlinkOutOfTheDirectory(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.yaml"), []byte("machine: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}

	d, err := cluster.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close() //nolint:errcheck // the test is done with it

	if _, err := d.ReadFile("link.yaml"); !errors.Is(err, cluster.ErrEscapes) {
		t.Errorf("ReadFile through an escaping symlink: %v, want ErrEscapes", err)
	}
}

func TestDir_RefusesFilesOverTheSizeBound(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.yaml"), make([]byte, cluster.MaxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}

	d, err := cluster.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close() //nolint:errcheck // the test is done with it

	if _, err := d.ReadFile("big.yaml"); !errors.Is(err, cluster.ErrTooLarge) {
		t.Errorf("ReadFile of an oversized file: %v, want ErrTooLarge", err)
	}
}

func TestReadFileBounded_RefusesFilesOverTheSizeBoundWithoutReadingThem(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, make([]byte, cluster.MaxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}

	if _, err := cluster.ReadFileBounded(big); !errors.Is(err, cluster.ErrTooLarge) {
		t.Errorf("ReadFileBounded(%s): %v, want ErrTooLarge", big, err)
	}
}

func TestLoad_TheReferenceLabLoads(t *testing.T) {
	d, err := cluster.OpenDir("../../examples/homelab")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close() //nolint:errcheck // the test is done with it

	c, err := cluster.Load("examples/homelab", d)
	if err != nil {
		t.Fatal(err)
	}

	if len(c.Spec.Nodes) != 5 || c.Spec.Nodes[1].Schematic != "gpu" {
		t.Errorf("nodes = %+v", c.Spec.Nodes)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte("nodes: [{name: a, address: b, role: worker}]\n"))
	f.Add([]byte("cluster: {name: x}\nnodes: &a [*a]\n"))
	f.Add([]byte("- 1\n- 2\n"))
	f.Add([]byte("cluster: {name: x}\nx: " + hostile.AliasBomb(9) + "\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		hostile.Bounded(t, func() {
			c, err := cluster.Parse(data)
			if err != nil {
				var ie *cluster.InputError
				if !errors.As(err, &ie) {
					t.Fatalf("error is not placed: %v", err)
				}

				return
			}

			for _, n := range c.Spec.Nodes {
				_ = c.NodePatches(n)
			}
		})
	})
}

func TestLoad_ImageFactoryOverHTTPOnlyToALoopbackAddress(t *testing.T) {
	for url, ok := range map[string]bool{
		"https://factory.talos.dev":  true,
		"http://127.0.0.1:43211":     true,
		"http://[::1]:8080/":         true,
		"http://localhost:8080":      true,
		"http://10.0.0.5:8080":       false,
		"http://127.0.0.1.nip.io:80": false,
		"ftp://factory.lab":          false,
	} {
		_, err := cluster.Load("lab", files(strings.Replace(minimal, "kubernetesVersion: v1.36.4\n", "kubernetesVersion: v1.36.4\nimageFactory: "+url+"\n", 1)))
		if (err == nil) != ok {
			t.Errorf("imageFactory %s: error %v, want accepted %v", url, err, ok)
		}
	}
}

// YAML's ~ is null: a setting written ~ is absent (its default, or "is required"), never the
// string "~".
func TestLoad_TildeIsAnAbsentValueNotTheStringTilde(t *testing.T) {
	c, err := cluster.Load("lab", files(strings.Replace(minimal, "talosVersion: v1.13.9\n", "talosVersion: v1.13.9\nplatform: ~\nimageFactory: ~\n", 1)))
	if err != nil {
		t.Fatal(err)
	}

	if c.Platform() != "metal" || c.ImageFactory() != "https://factory.talos.dev" {
		t.Errorf("~ did not leave the defaults: platform %q factory %q", c.Platform(), c.ImageFactory())
	}

	_, err = cluster.Load("lab", files(strings.Replace(minimal, "kubernetesVersion: v1.36.4", "kubernetesVersion: ~", 1)))
	if err == nil || err.Error() != "lab/talops.yaml:5: kubernetesVersion: is required" {
		t.Errorf("kubernetesVersion: ~ gave %v, want it required", err)
	}
}

// NodeIndex answers from the nodes as they are, also after Spec.Nodes changed.
func TestNodeIndex_FollowsTheNodesAsTheyAre(t *testing.T) {
	c, err := cluster.Load("lab", files(minimal))
	if err != nil {
		t.Fatal(err)
	}

	if c.NodeIndex("w1") != 1 || c.NodeIndex("cp1") != 0 || c.NodeIndex("nope") != -1 {
		t.Errorf("as loaded: w1 %d, cp1 %d, nope %d", c.NodeIndex("w1"), c.NodeIndex("cp1"), c.NodeIndex("nope"))
	}

	c.Spec.Nodes = append([]cluster.Node{{Name: "w0"}}, c.Spec.Nodes...)

	if c.NodeIndex("w1") != 2 || c.NodeIndex("w0") != 0 {
		t.Errorf("after a node was put first: w1 %d, w0 %d", c.NodeIndex("w1"), c.NodeIndex("w0"))
	}

	c.Spec.Nodes = c.Spec.Nodes[:1]

	if c.NodeIndex("w1") != -1 {
		t.Errorf("after w1 went: %d", c.NodeIndex("w1"))
	}
}

// A state whose talops.yaml is the same bytes as another's takes that one's model, and is
// what Load makes of it; a talops.yaml of other bytes is parsed. Either reads and checks
// its own files, under its own directory.
func TestLoadLike_TakesTheModelOfTheSameTalopsYAML(t *testing.T) {
	head, err := cluster.Load("head", files(minimal))
	if err != nil {
		t.Fatal(err)
	}

	base, err := cluster.LoadLike("base", files(minimal), head)
	if err != nil {
		t.Fatal(err)
	}

	loaded, err := cluster.Load("base", files(minimal))
	if err != nil {
		t.Fatal(err)
	}

	if !reflect.DeepEqual(base.Spec, loaded.Spec) || base.NodeLine("w1", "patches") != loaded.NodeLine("w1", "patches") {
		t.Errorf("LoadLike made %+v, Load %+v", base.Spec, loaded.Spec)
	}

	if base.Path(cluster.FileName) != loaded.Path(cluster.FileName) {
		t.Errorf("LoadLike names its file %s, Load %s", base.Path(cluster.FileName), loaded.Path(cluster.FileName))
	}

	// Its nodes are its own.
	head.Spec.Nodes[1].Name = "renamed"
	if base.Spec.Nodes[1].Name != "w1" || base.NodeIndex("w1") != 1 {
		t.Errorf("a change to the other state's nodes reached this one: %q", base.Spec.Nodes[1].Name)
	}

	// Its files are its own, and checked.
	other := files(minimal)
	delete(other, "nodes/w1.yaml")

	if _, err := cluster.LoadLike("base", other, head); err == nil || !strings.Contains(err.Error(), "nodes/w1.yaml") {
		t.Errorf("a missing file of its own: %v", err)
	}

	// Another talops.yaml is parsed.
	changed, err := cluster.LoadLike("base", files(strings.Replace(minimal, "v1.13.9", "v1.13.8", 1)), head)
	if err != nil || changed.Spec.TalosVersion != "v1.13.8" {
		t.Errorf("another talops.yaml: %v, %q", err, changed.Spec.TalosVersion)
	}
}
