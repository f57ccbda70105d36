package app_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/talos/talostest"
)

// initFiles is the repository talops init writes for the cluster lab (a control plane at
// 10.0.20.100, a worker at 192.0.2.11), with Talos v1.13.9 and Kubernetes v1.35.2.
func initFiles(t *testing.T, opts app.InitOptions) cluster.MapFiles {
	t.Helper()

	files := cluster.MapFiles{}
	rel := func(name string) string {
		return filepath.ToSlash(strings.TrimPrefix(name, "lab"+string(filepath.Separator)))
	}

	d := &app.Deps{
		Outside: app.Outside{
			ReadFile: func(name string) ([]byte, error) {
				if data, ok := files[rel(name)]; ok {
					return data, nil
				}

				return nil, fs.ErrNotExist
			},
			CreateFile: func(name string, data []byte, _ os.FileMode) error {
				files[rel(name)] = data

				return nil
			},
			MkdirAll: func(string, os.FileMode) error { return nil },
			Now:      func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) },
		},
	}

	opts.Dir, opts.Name, opts.Endpoint, opts.Plaintext = "lab", "lab", "https://10.0.20.100:6443", true
	opts.TalosVersion, opts.KubernetesVersion = "v1.13.9", "v1.35.2"

	if _, err := app.Init(context.Background(), d, opts); err != nil {
		t.Fatalf("init: %v", err)
	}

	return files
}

// initLab is an init-made repository and its two nodes, fakes booted into maintenance mode
// that pick the hostnames given (as Talos picks talos-xxx-yyy).
type initLab struct {
	d       *app.Deps
	files   cluster.MapFiles
	servers map[string]*talostest.Server
	kube    *fakeKube
}

func startInitLab(t *testing.T, files cluster.MapFiles, hostnames map[string]string) *initLab {
	t.Helper()

	c, err := cluster.Load("lab", files)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	l := &initLab{files: files, servers: map[string]*talostest.Server{}, kube: &fakeKube{}}
	ca := talostest.NewCA(t)
	etcd, endpoints := &talostest.Cluster{}, map[string]string{}

	var mu sync.Mutex

	for _, n := range c.Spec.Nodes {
		s := talostest.Start(t, ca, talostest.Node{
			Name: n.Name, Address: n.Address, Version: "v1.13.9", SchematicID: ids[n.Schematic], Mode: "metal",
			Cluster: etcd, Hostname: hostnames[n.Name],
		})
		l.servers[n.Name], endpoints[n.Address] = s, s.Addr
	}

	talosconfig := filepath.Join(t.TempDir(), "talosconfig")
	if err := os.WriteFile(talosconfig, talostest.TalosconfigBytes(t, talostest.Talosconfig(t, "lab", ca.PEM, ca.ClientCert(t))), 0o600); err != nil {
		t.Fatal(err)
	}

	getenv := func(k string) string { return map[string]string{"TALOSCONFIG": talosconfig}[k] }

	var m *mask.Masker

	l.d = &app.Deps{
		Outside: app.Outside{
			Getenv:   getenv,
			ReadFile: os.ReadFile,
			OpenDir: func(dir string) (cluster.Files, func() error, error) {
				if dir != "lab" {
					return nil, nil, errors.New("no such directory")
				}

				return files, func() error { return nil }, nil
			},
			TalosEndpoint: func(address string) string {
				mu.Lock()
				defer mu.Unlock()

				if e, ok := endpoints[address]; ok {
					return e
				}

				return "127.0.0.1:1"
			},
			TalosTimeout: 3 * time.Second,
			GateTimeout:  5 * time.Second,
			GateInterval: 10 * time.Millisecond,
			Kube:         func([]byte) (app.Kube, error) { return l.kube, nil },
		},
		Mask:    func(values ...string) { m = mask.New(append(m.Values(), values...)...) },
		Masker:  func() *mask.Masker { return m },
		Secrets: &secrets.Loader{Getenv: getenv, ReadFile: os.ReadFile, Now: func() time.Time { return time.Unix(0, 0) }},
	}

	return l
}

func (l *initLab) apply(t *testing.T, what string) {
	t.Helper()

	res, err := app.Apply(context.Background(), l.d, app.ApplyOptions{Dir: "lab", Mode: "auto", Parallel: 1, NoEtcdBackup: true})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}

	for _, n := range res.Report.Nodes {
		if n.Outcome != "applied" {
			t.Fatalf("%s: %s %s (%s)", what, n.Name, n.Outcome, n.Detail)
		}
	}

	for _, s := range l.servers {
		s.WaitRunning(t)
	}
}

// A cluster made by init --no-hostnames, whose nodes picked their own hostnames: apply
// drains, uncordons and waits for the kubelets of the Nodes the nodes registered as, not
// of Nodes named as in talops.yaml.
func TestApply_AnInitMadeClusterFindsTheNodesItsKubeletsRegistered(t *testing.T) {
	t.Parallel()

	files := initFiles(t, app.InitOptions{NoHostnames: true})
	picked := map[string]string{"lab-cp1": "talos-4xk-91q", "lab-worker1": "talos-7pe-2mz"}
	l := startInitLab(t, files, picked)

	l.apply(t, "the first apply, from maintenance mode")
	l.kube.nodes = []string{"talos-4xk-91q", "talos-7pe-2mz"}

	// A file reboots a node of Talos 1.13: each is drained first.
	files["patches/all.yaml"] = append(files["patches/all.yaml"], []byte("  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")...)

	l.apply(t, "an apply that reboots")

	want := []string{"drain talos-4xk-91q", "uncordon talos-4xk-91q", "drain talos-7pe-2mz", "uncordon talos-7pe-2mz"}
	if got := l.kube.recorded(); !slices.Equal(got, want) {
		t.Errorf("Kubernetes calls %q, want %q", got, want)
	}

	// The Kubernetes bump waits for each kubelet under its Node's name: the fake knows no
	// Node named lab-cp1.
	s := string(files["talops.yaml"])
	files["talops.yaml"] = []byte(strings.Replace(s, "kubernetesVersion: v1.35.2", "kubernetesVersion: v1.36.4", 1))

	api := &upgradeAPI{servers: map[string]*talostest.Server{}}
	for name, kubeName := range picked {
		api.servers[kubeName] = l.servers[name]
	}

	l.d.KubernetesAPI = func(ctx context.Context, kubeconfig func(context.Context) ([]byte, error)) (app.KubernetesAPI, error) {
		if _, err := kubeconfig(ctx); err != nil {
			return nil, err
		}

		return api, nil
	}

	l.apply(t, "the Kubernetes bump")

	if len(api.synced) != 1 {
		t.Errorf("manifests synced %d times, want once", len(api.synced))
	}
}

// init names each node's host after it: the Node the kubelet registers is the talops name.
func TestApply_AnInitMadeClusterRegistersItsNodesUnderTheirTalopsNames(t *testing.T) {
	t.Parallel()

	files := initFiles(t, app.InitOptions{})
	l := startInitLab(t, files, map[string]string{"lab-cp1": "talos-4xk-91q", "lab-worker1": "talos-7pe-2mz"})

	l.apply(t, "the first apply, from maintenance mode")
	l.kube.nodes = []string{"lab-cp1", "lab-worker1"}

	files["patches/all.yaml"] = append(files["patches/all.yaml"], []byte("  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")...)

	l.apply(t, "an apply that reboots")

	want := []string{"drain lab-cp1", "uncordon lab-cp1", "drain lab-worker1", "uncordon lab-worker1"}
	if got := l.kube.recorded(); !slices.Equal(got, want) {
		t.Errorf("Kubernetes calls %q, want %q", got, want)
	}
}
