package talosctl_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/config/generate"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer/importtest"
	"github.com/talops/talops/internal/importer/talosctl"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/secrets"
)

// genConfig is what talosctl gen config writes (the same machinery, with its comments),
// for one cluster's bundle.
func genConfig(t *testing.T, b *gensecrets.Bundle, typ machine.Type) []byte {
	t.Helper()

	contract, err := coreconfig.ParseContractFromVersion("v1.13.7")
	if err != nil {
		t.Fatal(err)
	}

	in, err := generate.NewInput("lab", "https://10.0.0.10:6443", "1.36.2",
		generate.WithVersionContract(contract), generate.WithSecretsBundle(b),
		generate.WithInstallImage("ghcr.io/siderolabs/installer:v1.13.7"))
	if err != nil {
		t.Fatal(err)
	}

	cfg, err := in.Config(typ)
	if err != nil {
		t.Fatal(err)
	}

	data, err := cfg.EncodeBytes(encoder.WithComments(encoder.CommentsAll))
	if err != nil {
		t.Fatal(err)
	}

	return data
}

func bundle(t *testing.T) *gensecrets.Bundle {
	t.Helper()

	contract, err := coreconfig.ParseContractFromVersion("v1.13.7")
	if err != nil {
		t.Fatal(err)
	}

	b, err := gensecrets.NewBundle(gensecrets.NewFixedClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), contract)
	if err != nil {
		t.Fatal(err)
	}

	return b
}

// nodeConfig is a worker's config edited by hand, as per-node configs are: a label, a
// sysctl, a field removed, a document added, its hostname.
func nodeConfig(t *testing.T, b *gensecrets.Bundle) []byte {
	t.Helper()

	w := string(genConfig(t, b, machine.TypeWorker))
	w = strings.Replace(w, "machine:\n", "machine:\n    nodeLabels:\n        rack: r1\n    sysctls:\n        vm.max_map_count: \"262144\"\n", 1)
	w = strings.Replace(w, "    install:\n        disk: /dev/sda\n", "    install:\n        disk: /dev/nvme0n1\n", 1)

	w = strings.Replace(w, "kind: HostnameConfig\n", "kind: HostnameConfig\nhostname: db1\n", 1)
	w = strings.Replace(w, "auto: stable", "auto: \"off\"", 1)

	return []byte(w + "---\napiVersion: v1alpha1\nkind: WatchdogTimerConfig\ndevice: /dev/watchdog0\ntimeout: 5m\n")
}

// TestImport_RendersEveryConfigBack: talops renders each imported node's config back,
// document by document, from the configs' own secrets.
func TestImport_RendersEveryConfigBack(t *testing.T) {
	b := bundle(t)
	in := talosctl.Input{Secrets: "secrets.sops.yaml", Configs: []talosctl.Source{
		{Name: "controlplane.yaml", Data: genConfig(t, b, machine.TypeControlPlane)},
		{Name: "worker.yaml", Data: genConfig(t, b, machine.TypeWorker)},
		{Name: "10.0.0.12.yaml", Data: nodeConfig(t, b)},
	}}

	res, err := talosctl.Import(in)
	if err != nil {
		t.Fatal(err)
	}

	files := cluster.MapFiles{"secrets.sops.yaml": []byte("{}\n")}
	for _, f := range res.Files {
		files[f.Path] = f.Data
	}

	c, err := cluster.Load("repo", files)
	if err != nil {
		t.Fatalf("talops.yaml does not load: %v\n%s", err, files[cluster.FileName])
	}

	if got := []string{c.Spec.Nodes[0].Name, c.Spec.Nodes[1].Name, c.Spec.Nodes[2].Name, c.Spec.Nodes[2].Address}; strings.Join(got, " ") != "controlplane worker db1 10.0.0.12" {
		t.Fatalf("nodes named %v", got)
	}

	for i, n := range c.Spec.Nodes {
		m, err := render.One(c, &secrets.Bundle{Bundle: res.Bundle}, n, render.Options{Installer: render.FactoryInstaller(nil)})
		if err != nil {
			t.Fatalf("render %s: %v", n.Name, err)
		}

		got, err := m.Bytes()
		if err != nil {
			t.Fatal(err)
		}

		diffs, err := importtest.Compare(in.Configs[i].Data, got)
		if err != nil {
			t.Fatal(err)
		}

		if len(diffs) > 0 {
			t.Errorf("%s renders otherwise than %s: %q", n.Name, in.Configs[i].Name, diffs)
		}
	}

	for _, f := range res.Files {
		for _, v := range (&secrets.Bundle{Bundle: b}).Values() {
			if strings.Contains(string(f.Data), v) {
				t.Fatalf("%s holds a secret of the bundle", f.Path)
			}
		}
	}
}

func TestImport_ConfigsOfTwoClustersAreRefused(t *testing.T) {
	_, err := talosctl.Import(talosctl.Input{Configs: []talosctl.Source{
		{Name: "controlplane.yaml", Data: genConfig(t, bundle(t), machine.TypeControlPlane)},
		{Name: "worker.yaml", Data: genConfig(t, bundle(t), machine.TypeWorker)},
	}})

	var ie *cluster.InputError
	if !errors.As(err, &ie) || ie.File != "worker.yaml" || !strings.Contains(ie.Msg, "another cluster ID than controlplane.yaml: the configs are of two clusters") {
		t.Fatalf("want worker.yaml refused as another cluster's, got %v", err)
	}
}

func TestImport_ASecretOutsideTheBundleIsReported(t *testing.T) {
	b := bundle(t)
	cp := strings.Replace(string(genConfig(t, b, machine.TypeControlPlane)), "machine:\n",
		"machine:\n    systemDiskEncryption:\n        state:\n            provider: luks2\n            keys:\n                - slot: 0\n                  static:\n                      passphrase: not-in-the-bundle\n", 1)

	res, err := talosctl.Import(talosctl.Input{Secrets: "s.yaml", Configs: []talosctl.Source{{Name: "controlplane.yaml", Data: []byte(cp)}}})
	if err != nil {
		t.Fatal(err)
	}

	var paths []string

	for _, f := range res.Findings {
		if f.Code == talosctl.CodeMapped && f.Node == "controlplane" && strings.Contains(f.Message, "secret outside the bundle") {
			paths = append(paths, f.Path)
		}
	}

	if want := "/machine/systemDiskEncryption/state/keys/-/static/passphrase"; len(paths) != 1 || paths[0] != want {
		t.Fatalf("want the passphrase's path %s reported, got %v", want, paths)
	}

	for _, f := range res.Findings {
		if strings.Contains(f.Message, "not-in-the-bundle") {
			t.Fatal("a finding quotes the secret")
		}
	}
}
